"""A part's ints that the model's `forward` rewrote, as they are when the part is called.

A construction context runs each part's `forward` again on inputs in its own names, after the
model's `forward` ran (built.py). That run wrote some of the part's plain ints: a layer that
resizes its window to the input on each call (`if min(res) <= self.window_size:
self.window_size = min(res)`), in every part the loop over a container of unknown length stands
for, so the value left is the join of all of them — unknown, and every shape after it too. Nor
is the value left the one the part had when the model called it: the first call saw the
constructed one.

What holds at every call is only that the attribute holds some int: its value at that call's
entry, which the part's run takes as a symbol of the attribute's name (`self.window_size`, the
name a reader and a run's bindings give it), at least the least of the values it was seen to
hold (1 for a size, 0 for a shift that may drop to 0; not both provably >= 0: left as it was).
"""
from __future__ import annotations

from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import ge
from ..shapes.values import IntV
from .objects import InstanceObj, OpaqueV
from .result import DimInfo


def _int_expr(v) -> Optional[Expr]:
    if isinstance(v, IntV):
        return v.expr
    if isinstance(v, OpaqueV) and v.kind == "int":
        return Expr.sym(v.path)
    return None


def _least(facts, exprs: list) -> Optional[int]:
    """1 or 0, the least each of `exprs` is proven to be; None when not proven >= 0."""
    if all(e.is_const and e.value >= 1 or facts.entails(ge(e, 1)) for e in exprs):
        return 1
    if all(e.is_const and e.value >= 0 or facts.entails(ge(e, 0)) for e in exprs):
        return 0
    return None


def at_entry(it, part: InstanceObj, before: Optional[dict], facts) -> frozenset:
    """In `part`, each int attribute written since `before` (held_state.snapshot, taken before
    the model's `forward`) the symbol of its value at a call's entry; those symbols."""
    got = (before or {}).get(id(part))
    if got is None or got[0] is not part:
        return frozenset()
    out = set()
    for name, old in got[1].items():
        now = part.attrs.get(name)
        if now is old:
            continue
        exprs = [_int_expr(old), _int_expr(now)]
        if any(e is None for e in exprs):
            continue
        lo = _least(facts, exprs)
        if lo is None:
            continue
        path = f"self.{name}"
        if path not in it.env.dims:
            it.env.dims[path] = DimInfo(path, f"`{path}` as a call finds it (`forward` rewrites it)")
        if lo < 1:
            it.env.bound_below(path, lo)
        part.attrs[name] = OpaqueV(path, "int")
        out.add(path)
    return frozenset(out)
