"""Dicts a function makes and keeps to itself: `options = {}` filled by `options[key] = value` in
a loop over a spec string's parts, then read by `'p' in options`, `options['c']`,
`options.get('se', 0.)` (a block spec decoded into its arguments).

A dict made elsewhere may hold keys the analysis never saw put there, so `key in d` decides
presence only (compare.contains). A dict literal bound to a local name whose every use in the
function is one of those reads, or a store under a key (`d[k] = v`: a known key is an item, an
unknown one opens the dict, executor.assign), cannot reach code the analysis does not run: it
is not returned, passed, aliased, stored, spread, copied or closed over. Every write to it is
one the analysis makes itself — both arms of an undecided `if`, every pass of a loop, on the one
object — so a key it never holds is absent on every path, and the literal is `exact`, as a
module's private tables are (sealed_dicts.py). Read off the function's syntax once per node."""
from __future__ import annotations

import ast
from typing import Optional

from ..frontend.walk import walk
from .objects import FuncObj

_READ_METHODS = frozenset({"get", "keys", "items", "values"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def is_private(stmt: ast.AST, name: str, fr) -> bool:
    """Whether `stmt`, a `name = {...}` of known keys (no `**` spread) in the function `fr` runs,
    binds a dict only that function's own reads and stores see."""
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Dict)):
        return False
    fn = _function_node(fr)
    if fn is None:
        return False
    assigns = getattr(fn, "_shapehint_private_dicts", None)
    if assigns is None:  # (the ids of its private literals' statements, kept on the node: stable while it lives)
        names = _private_names(fn)
        assigns = frozenset(id(st) for st in walk(fn) if isinstance(st, ast.Assign) and isinstance(st.value, ast.Dict)
                            and all(k is not None for k in st.value.keys) and len(st.targets) == 1
                            and isinstance(st.targets[0], ast.Name) and st.targets[0].id in names)
        fn._shapehint_private_dicts = assigns
    return id(stmt) in assigns


def _function_node(fr) -> Optional[ast.AST]:
    """The node of the function `fr` runs, found by its name in its class or module (None for a
    nested function or one not found: no claim)."""
    own = fr.qualname.rsplit(".", 1)[-1]
    f = fr.cls.attrs.get(own) if fr.cls is not None else fr.globals.get(fr.qualname)
    if isinstance(f, FuncObj) and f.qualname == fr.qualname and isinstance(f.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f.node
    return None


def _private_names(fn: ast.AST) -> frozenset:
    candidates = {t.id for st in walk(fn) if isinstance(st, ast.Assign) and isinstance(st.value, ast.Dict)
                  for t in st.targets if isinstance(t, ast.Name)}
    if not candidates:
        return frozenset()
    out = set(candidates)
    for st in walk(fn):
        if isinstance(st, (ast.Global, ast.Nonlocal)):
            out -= set(st.names)
        elif isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
            out.discard(st.target.id)  # (`d |= other`: keys from elsewhere)
        elif isinstance(st, _SCOPES) and st is not fn:
            out -= {n.id for n in walk(st) if isinstance(n, ast.Name)}
    allowed = set()
    for n in walk(fn):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and not isinstance(n.ctx, ast.Del):
            allowed.add(id(n.value))  # `d[k]`, `d[k] = v`
        elif isinstance(n, ast.Compare) and all(isinstance(op, (ast.In, ast.NotIn)) for op in n.ops):
            allowed.update(id(c) for c in n.comparators if isinstance(c, ast.Name))  # `k in d`
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _READ_METHODS \
                and isinstance(n.func.value, ast.Name):
            allowed.add(id(n.func.value))  # `d.get(k)`, `d.items()`
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1:
            allowed.add(id(n.args[0]))
    for n in walk(fn):
        if isinstance(n, ast.Name) and n.id in out and isinstance(n.ctx, ast.Load) and id(n) not in allowed:
            out.discard(n.id)
        elif isinstance(n, ast.Name) and n.id in out and isinstance(n.ctx, ast.Del):
            out.discard(n.id)
    for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs + [fn.args.vararg, fn.args.kwarg]:
        if a is not None:
            out.discard(a.arg)  # (a parameter's own dict may be the caller's)
    return frozenset(out)
