"""The first items of a comprehension over a range of unknown length (`ListV.first`).

timm's Swin widens each stage by `embed_dim = [int(embed_dim * 2 ** i) for i in range(n)]`,
`n` the number of stages, then builds its patch embedding with `embed_dim[0]`. The list's
length is not known, so its element was the join of every item: `2 ** i` of an unknown `i`, a
fresh int, and the embedding's width was a number no name holds. Where `dims[0]` does not raise,
the list has an item 0, and that item is the element at `i = start`: `int(embed_dim * 1)`.
A `range(len(depths))` whose length the analysis does not know (the range is unknown then)
starts at 0 all the same.

Over a zip with a list of unknown length (`ListV.upto`), item k is the element made of the zip's
tuple k (`of_items`): `[r if r <= w else w for r, w in zip(res, (3, 5))][0]` is `min(3, res[0])`.

Only an element that is arithmetic on names, constants and items (`_PURE`) is evaluated again,
as it has no effect (a `[Block(d) for _ in range(n)]` would build one more block), and only an int
is kept. No bound on the length is claimed (unlike `ListV.upto`): a loop over the list, `len`,
and an index past these items read the element as before. A write to the list forgets them
(`forget`, from `Interp.mutated`); joins and copies make lists without them.
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

from ..shapes.expr import Expr
from ..shapes.values import IntV, ListV, UnknownV, Value
from .objects import RangeV

FIRST = 2  # items kept, at most
_PURE = (ast.BinOp, ast.UnaryOp, ast.Name, ast.Constant, ast.Subscript, ast.Attribute, ast.Load, ast.operator,
         ast.unaryop, ast.IfExp, ast.Compare, ast.cmpop)
_PURE_CALLS = {"int", "round", "min", "max", "abs"}


def of_range(source: Value, node: ast.ListComp, at: Callable[[Value], Value]) -> tuple:
    """The first items of `node` (one generator, no filter, over `source`), each `at(i)`: the
    element with the target bound to `i`."""
    gen = node.generators[0]
    if gen.ifs or not isinstance(gen.target, ast.Name) or not _pure(node.elt):
        return ()
    if isinstance(source, RangeV):
        start, step = source.start.value, source.step.value
    elif isinstance(source, UnknownV) and source.reason == "range" and isinstance(gen.iter, ast.Call) \
            and isinstance(gen.iter.func, ast.Name) and gen.iter.func.id == "range" and len(gen.iter.args) == 1 \
            and not gen.iter.keywords:
        start, step = 0, 1  # `range(len(depths))` of a length not known: from 0 all the same
    else:
        return ()
    if start is None or step is None or step <= 0:
        return ()
    out = []
    for k in range(FIRST):
        v = at(IntV(Expr.const(start + k * step)))
        if not isinstance(v, IntV):
            break
        out.append(v)
    return tuple(out)


def of_items(source: Value, node: ast.ListComp, at: Callable[[Value], Value]) -> tuple:
    """The first items of `node` (one generator, no filter) over a sequence of at most N known
    items (`ListV.upto`: `zip(input_resolution, window)`), each `at(item)`: where `lst[k]` does
    not raise the source had an item k, and the element made of it is item k."""
    gen = node.generators[0]
    if gen.ifs or not isinstance(source, ListV) or not source.upto or not _pure(node.elt):
        return ()
    out = []
    for it in source.upto[:FIRST]:
        v = at(it)
        if not isinstance(v, IntV):
            break
        out.append(v)
    return tuple(out)


def item(lst: ListV, idx: Value) -> Optional[Value]:
    """`lst[k]` for one of its first items (none: None)."""
    if lst.items is None and lst.first and isinstance(idx, IntV) and idx.expr.value is not None \
            and 0 <= idx.expr.value < len(lst.first):
        return lst.first[idx.expr.value]
    return None


def forget(obj) -> None:
    """`obj` is written to: its first items may have changed."""
    if isinstance(obj, ListV):
        obj.first = ()


def _pure(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            if not isinstance(n.func, ast.Name) or n.func.id not in _PURE_CALLS or n.keywords:
                return False
        elif not isinstance(n, _PURE):
            return False
    return True
