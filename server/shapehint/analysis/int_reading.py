"""A value of unknown kind that the code turns into a pair of itself, read as an int.

    self.window_size = ws if isinstance(ws, Iterable) else (ws, ws)   # (or a to-2-tuple helper)

With `ws` a config attribute or an unannotated parameter (an OpaqueV of no known kind), the
test is undecided and the join of `ws` and `(ws, ws)` was nothing: every window, kernel or patch
size read from it was lost. The analysis already reads such a value as an int symbol wherever
the code uses it as a size (`torch.zeros(ws)`, `ws * ws`, `h <= ws`); the join takes the same
reading, so it is the pair `(ws, ws)`. When the value is really a tuple, a consumer binding the
symbol to it cannot evaluate the size (no answer, never a wrong one)."""
from __future__ import annotations

from typing import Optional

from ..shapes.expr import Expr
from ..shapes.values import IntV, TupleV, Value
from .objects import OpaqueV


def pair_of_itself(vals: list) -> Optional[TupleV]:
    """The tuple among `vals` when the others are the one opaque value each of its items is."""
    opaque = [v for v in vals if isinstance(v, OpaqueV)]
    tuples = [v for v in vals if isinstance(v, TupleV)]
    if not opaque or not tuples or len(opaque) + len(tuples) != len(vals):
        return None
    path = opaque[0].path
    if any(o.path != path or o.kind not in (None, "int") for o in opaque):
        return None
    first = tuples[0]
    if any(t.items != first.items for t in tuples[1:]) or not first.items:
        return None
    if all(_is(item, path) for item in first.items):
        return first
    return None


def _is(item: Value, path: str) -> bool:
    if isinstance(item, OpaqueV):
        return item.path == path
    return isinstance(item, IntV) and item.expr == Expr.sym(path)
