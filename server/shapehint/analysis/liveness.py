"""The names a loop body may read before it writes them (its upward-exposed names).

A loop's next pass depends on the environment at its head only through these names, so once
they are stable the loop has reached its fixpoint, whatever else the pass reassigned
(`hidden = layer(hidden)`'s `layer_output`, a fresh `query`). controlflow._loop_once stops there
instead of running every nested loop twice per pass of the loop around it.

Conservative by construction: a name counts as written only by a plain assignment at the
body's top level (or in a `with` there), or by both arms of an `if` there; an inner loop's
body sees its own target but writes nothing for certain (it may not run); every other
construct (`try`, `match`, a walrus) may read what it mentions and writes nothing for certain.
"""
from __future__ import annotations

import ast

from ..frontend.walk import walk


def exposed_names(loop: ast.AST) -> frozenset:
    """For a `for` or `while` node; cached on the node (a pure function of the tree)."""
    got = getattr(loop, "_sh_exposed", None)
    if got is None:
        bound: set = set()
        reads: set = set()
        if isinstance(loop, (ast.For, ast.AsyncFor)):
            bound = _stored(loop.target)  # bound afresh before each pass's first statement
        else:
            reads |= _loaded(loop.test, bound)
        _block(loop.body, bound, reads)
        got = frozenset(reads)
        loop._sh_exposed = got
    return got


def _block(stmts, defined: set, reads: set) -> set:
    """Adds to `reads` what `stmts` may read before writing; returns the names written on
    every path through them (on top of `defined`)."""
    defined = set(defined)
    for st in stmts:
        if isinstance(st, ast.Assign):
            reads |= _loaded(st.value, defined)
            for t in st.targets:
                reads |= _loaded(t, defined)  # subscripts and attributes read their bases
            for t in st.targets:
                defined |= _stored(t)
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            reads |= _loaded(st.value, defined) | _loaded(st.target, defined)
            defined |= _stored(st.target)
        elif isinstance(st, ast.AugAssign):
            reads |= _loaded(st.value, defined) | (_stored(st.target) - defined) | _loaded(st.target, defined)
            defined |= _stored(st.target)
        elif isinstance(st, ast.If):
            reads |= _loaded(st.test, defined)
            then = _block(st.body, defined, reads)
            other = _block(st.orelse, defined, reads)
            defined = then & other
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            reads |= _loaded(st.iter, defined)
            _block(st.body, defined | _stored(st.target), reads)  # it may run no time at all
            _block(st.orelse, defined, reads)
        elif isinstance(st, ast.While):
            reads |= _loaded(st.test, defined)
            _block(st.body, defined, reads)
            _block(st.orelse, defined, reads)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            for item in st.items:
                reads |= _loaded(item.context_expr, defined)
            inner = set(defined)
            for item in st.items:
                if item.optional_vars is not None:
                    reads |= _loaded(item.optional_vars, inner)
                    inner |= _stored(item.optional_vars)
            defined = _block(st.body, inner, reads)
        else:
            reads |= _loaded(st, defined)
    return defined


def _stored(target: ast.AST) -> set:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        out: set = set()
        for e in target.elts:
            out |= _stored(e.value if isinstance(e, ast.Starred) else e)
        return out
    return set()


def _loaded(node: ast.AST, defined: set) -> set:
    """The names `node` reads (or deletes), less those already written. A store is never a
    read: a read after a write that not every path makes is caught at the read."""
    return {n.id for n in walk(node)
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store) and n.id not in defined}
