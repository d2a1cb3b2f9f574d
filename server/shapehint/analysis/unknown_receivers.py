"""`.reshape(...)` of a value the analysis lost: the sizes it is given.

A value from a callee the analysis cannot follow (an attention kernel of another package:
`out = kernel(q, k, v, ...)`) is unknown, and so was everything after it, though the code
usually says the shape at once: `out.reshape(batch_size, q_length, heads * head_dim)`. Whatever
`out` is, when `reshape` with those sizes returns, a tensor (or an array, whose `reshape` means
the same) has exactly them. So `reshape` of an unknown value is `reshape` of a tensor of unknown
rank (a fresh one: nothing is claimed of the value itself), and the rule gives the sizes given,
with `?` where one is `-1`; `?` too where one is a value the analysis lost (`x.size()[:-1] +
(self.nf,)`, ops/common.size_list). `reshape` and `view`, whose rule gives nothing for a dtype
(`x.view(torch.int8)` changes the last axis); the other methods say nothing of the result's shape.

A slice of its sizes is read the same way: `out.shape[:-2]` and `out.size()[:-2]` are those of a
fresh tensor of unknown rank, sizes nothing is known of (`out.reshape(*out.shape[:-2], -1)`,
`out.size()[:-2] + (all_head_size,)`), so a `reshape` to them keeps what the code spells
(`[*?, all_head_size]`) and claims nothing of `out` itself. Only slices: one size (`out.shape[0]`)
would be a fresh `?` in the function's own answer, whose join with its calling contexts then
loses the sizes they agree on (`tests/unit/test_calling_contexts.py`).
"""
from __future__ import annotations

from typing import Optional

from ..shapes.shape import Shape
from ..shapes.values import TensorV, UnknownV, Value
from .objects import MaybeNoneV, TensorMethod

SIZED = frozenset({"reshape", "view"})


def sized_method(obj: Value, name: str, fresh_star) -> Optional[Value]:
    """`obj.<name>` as a tensor method when `obj` is unknown and `name` returns the sizes it is
    given; None otherwise. `fresh_star()`: a new unknown-rank segment."""
    if name not in SIZED or not _lost(obj):
        return None
    return TensorMethod(TensorV(Shape.unknown(fresh_star())), name)


def sliced_sizes_of_lost(obj: Value, fresh_star) -> Optional[TensorV]:
    """The tensor whose sizes a slice of `obj.shape` (`obj.size()`) reads when `obj` is unknown:
    a fresh one of unknown rank; None otherwise."""
    return TensorV(Shape.unknown(fresh_star())) if _lost(obj) else None


def _lost(obj: Value) -> bool:
    return type(obj) is UnknownV and not isinstance(obj, MaybeNoneV)
