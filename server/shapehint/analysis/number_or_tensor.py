"""A value that is a number on some paths and a tensor on others, and arithmetic on it.

Real code accumulates into a number it starts at 0 (HF T5's relative position buckets):

    buckets = 0
    if bidirectional:                       # undecided: a configuration flag
        buckets += (rel > 0).long() * n     # a tensor on this path, still 0 on the other
    buckets += torch.where(small, rel, large)

Past the `if`, `buckets` is 0 or a tensor; the join of the two was unknown, and so was every sum
after it. Added to a tensor, both give a tensor: the number broadcasts to the other operand's
shape, the tensor broadcasts with it. When the two results have the same shape, that is the
result on every path. Anything else done with the value (its `.shape`, a call, a comparison)
stays unknown: it is an `UnknownV` to all other code.
"""
from __future__ import annotations

from typing import Optional

from ..shapes.values import FloatV, IntV, TensorV, UnknownV, Value
from .objects import NumberOrTensor


def joined(vals: list, join) -> Optional[NumberOrTensor]:
    """The join of numbers and tensors (with at least one of each), else None. `join` joins the
    numbers among themselves and the tensors among themselves."""
    nums = [v for v in vals if isinstance(v, (IntV, FloatV))]
    tensors = [v for v in vals if isinstance(v, TensorV) and not v.optional]
    if not nums or not tensors or len(nums) + len(tensors) != len(vals):
        return None
    number, tensor = join(nums), join(tensors)
    if not isinstance(number, (IntV, FloatV)) or not isinstance(tensor, TensorV):
        return None
    return NumberOrTensor("join", number, tensor)


def binop(it, op, a: Value, b: Value, node, fr) -> Optional[Value]:
    """`a op b` where one side is a NumberOrTensor and the other a tensor: the result both paths
    agree on, else None (not this module's case) or unknown. Each path's operation runs with its
    errors not reported and its facts dropped after it: it may not be the one that runs."""
    either, other = (a, b) if isinstance(a, NumberOrTensor) else (b, a)
    if not isinstance(either, NumberOrTensor):
        return None
    if not isinstance(other, TensorV):
        return UnknownV("join")
    results = []
    for side in (either.number, either.tensor):
        x, y = (side, other) if either is a else (other, side)
        fr.facts.push()
        fr.caught += 1
        try:
            results.append(it.binop(op, x, y, node, fr))
        finally:
            fr.caught -= 1
            fr.facts.pop()
    first, second = results
    if isinstance(first, TensorV) and isinstance(second, TensorV) and \
            it.resolve(first) == it.resolve(second):
        return first if first.dtype == second.dtype else TensorV(first.shape, None, first.origin)
    return UnknownV("join")
