"""`.reshape(...)` of a value the analysis lost: the sizes it is given.

A value from a callee the analysis cannot follow (an attention kernel of another package:
`out = kernel(q, k, v, ...)`) is unknown, and so was everything after it, though the code
usually says the shape at once: `out.reshape(batch_size, q_length, heads * head_dim)`. Whatever
`out` is, when `reshape` with those sizes returns, a tensor (or an array, whose `reshape` means
the same) has exactly them. So `reshape` of an unknown value is `reshape` of a tensor of unknown
rank (a fresh one: nothing is claimed of the value itself), and the rule gives the sizes given,
with `?` where one is `-1`. Only `reshape`: `view` also takes a dtype (`x.view(torch.int8)`),
which changes the last axis, and the other methods say nothing of the result's shape.
"""
from __future__ import annotations

from typing import Optional

from ..shapes.shape import Shape
from ..shapes.values import TensorV, UnknownV, Value
from .objects import MaybeNoneV, TensorMethod

SIZED = frozenset({"reshape"})


def sized_method(obj: Value, name: str, fresh_star) -> Optional[Value]:
    """`obj.<name>` as a tensor method when `obj` is unknown and `name` returns the sizes it is
    given; None otherwise. `fresh_star()`: a new unknown-rank segment."""
    if name not in SIZED or type(obj) is not UnknownV or isinstance(obj, MaybeNoneV):
        return None
    return TensorMethod(TensorV(Shape.unknown(fresh_star())), name)
