"""Axis-wise operations on a tensor of unknown rank (issue 28, cause 1).

`hidden_states = self.dense(hidden_states)` is `[*hidden_states, d]`: its rank is not known,
its last axis is. An operation that works along given axes and passes the others through
(`chunk(2, dim=-1)`, `split`, `transpose(-1, -2)`, `F.pad` of the last axes, `F.normalize`,
`cat`/`stack` of tensors with the same unknown axes) has an exact answer when every axis it
names lies on one known edge: the trailing axes for negative indices, the leading ones for
non-negative indices. The rule then runs on that edge alone, as a tensor of known rank, and the
rest of the shape is put back around its result.

Only what is exact: an axis not known yet is learned the way `x.shape[i]` learns it (an input
with fewer axes fails the operation) where nothing is known on the other side of the unknown
axes; where something is (`dim=1` of `[*x, d]`: axis 1 is the `d` when x is 2-D) it gives
nothing, and the known axes on the other side that may be the named ones (issue 25:
`ops/common.apart`) are dropped. Axes on both sides, or a rule that needs the whole rank, give
nothing. A precondition that fails on the edge alone may be one about the whole rank (reflect
padding wants a 2-D or 3-D input), so it gives nothing rather than an error.

An operation that leaves every axis before the ones it names where it was (`transpose(1, 2)` of
`[*x, h, d]`, the heads of an attention whose input's rank is not known; `unsqueeze(1)`) still
gives a tensor where the named axes may be ones known on the other side (`axiswise_or_edge`): the
axes before the nearer named one on their side, which no index reaches, then axes of unknown
number. Not the rank, nor the axes past the unknown ones: either side's may be the named ones.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

from ..shapes.shape import Shape
from ..shapes.values import ListV, TensorV, TupleV, Value
from .common import apart
from .context import NotApplicable, OpContext, OpFailed


def edge(cx: OpContext, x: TensorV, axes: Sequence[int]) -> tuple:
    """(whether the axes are trailing ones, x's shape with that edge known up to the farthest
    axis, less the other side's axes that may be the named ones)."""
    if not axes:
        raise NotApplicable("no axis named")
    back = all(a < 0 for a in axes)
    if not back and not all(a >= 0 for a in axes):
        raise NotApplicable("axes on both sides of the unknown ones")
    s = x.shape
    if s.rank is None and (-min(axes) > len(s.suffix) if back else max(axes) >= len(s.dims)) \
            and (s.dims if back else s.suffix):
        # `chunk(2, dim=1)` of `[*x, d]`: axis 1 is the last one when x is 2-D
        raise NotApplicable("the axis may be one of those known on the other side")
    cx.dim(x, min(axes) if back else max(axes))  # (learned as `x.shape[i]` learns it)
    s = x.shape
    if s.rank is not None:
        return back, s
    return back, apart(cx, s, front=[a for a in axes if a >= 0], back=[-a for a in axes if a < 0])


def _lift(v: Value, around: Shape, back: bool) -> Value:
    """A result of the rule on the edge, put back in the whole shape (the edge replaced)."""
    if isinstance(v, TensorV) and v.shape.rank is not None:
        if back:
            return replace(v, shape=Shape(around.dims, around.star, v.shape.dims))
        return replace(v, shape=Shape(v.shape.dims, around.star, around.suffix))
    if isinstance(v, TupleV) and v.items is not None:
        return TupleV(tuple(_lift(i, around, back) for i in v.items), v.is_size)
    if isinstance(v, ListV) and v.items is None and v.elem is not None:
        n = v.if_length
        return ListV(None, _lift(v.elem, around, back), length=v.length,
                     if_length=n and (n[0], tuple(_lift(i, around, back) for i in n[1])))
    raise NotApplicable("the result is not a tensor")


def axiswise(cx: OpContext, x: TensorV, axes: Sequence[int], rule: Callable[[TensorV], Value]) -> Value:
    """`rule(t)` — the operation on a tensor `t` of known rank — for `x` of unknown rank, whose
    `axes` (indices into x) are the only ones the operation reads or changes."""
    back, s = edge(cx, x, axes)
    if s.rank is not None:
        return rule(x)
    part = Shape(s.suffix) if back else Shape(s.dims)
    try:
        out = rule(replace(x, shape=part, optional=False))
    except OpFailed:
        raise NotApplicable("a precondition on the known axes alone") from None
    return _lift(out, s, back)


def axiswise_or_edge(cx: OpContext, x: TensorV, axes: Sequence[int], rule: Callable[[TensorV], Value],
                     how=None) -> Value:
    """`axiswise(cx, x, axes, rule)` for a `rule` that leaves the axes before the named ones (on
    their side) as they are; where that has no exact answer, the tensor whose edge before the
    nearer named axis is x's, the rest unknown: a segment of its own, nothing claimed of the rank
    — derived from x's where the rule only rearranges x's axes (`how`, shapes/rearranged.py), so
    that it is written out once x's rank is learned, and its rank, learned first, is x's."""
    try:
        return axiswise(cx, x, axes, rule)
    except NotApplicable:
        back = all(a < 0 for a in axes)
        if not axes or not back and not all(a >= 0 for a in axes):
            raise
    s = x.shape
    if s.rank is not None:  # (learned on the way: the rule on the whole shape)
        return rule(x)
    if back:
        n = min(-max(axes) - 1, len(s.suffix))
        held = Shape((), "", s.suffix[len(s.suffix) - n:] if n else ())
    else:
        held = Shape(s.dims[:min(min(axes), len(s.dims))], "", ())
    star = cx.derived_star(x, held, how) if how is not None else cx.fresh_star(s.star)
    return cx.tensor(Shape(held.dims, star, held.suffix), like=x)


def joined(cx: OpContext, ts: Sequence[TensorV], axis: int, rule: Callable[[list], Value]) -> Value:
    """`rule(parts)` — cat/stack of tensors of known rank — for tensors with the same unknown
    axes (one segment, the same axes on the side away from `axis`) and as many on its side,
    along a trailing `axis` (an index into the result's trailing axes for stack, which adds one)
    or a leading one (`torch.cat((a, b), 1)` of `[N, 1, *x]`s, channels split off an image)."""
    if not ts or not all(isinstance(t, TensorV) and t.shape.rank is None for t in ts):
        raise NotApplicable("not the same unknown axes")
    back = axis < 0
    first = ts[0].shape

    def near(s: Shape) -> tuple:
        return s.suffix if back else s.dims

    def far(s: Shape) -> tuple:
        return s.dims if back else s.suffix
    if any(t.shape.star != first.star or far(t.shape) != far(first) or len(near(t.shape)) != len(near(first))
           for t in ts):
        raise NotApplicable("not the same unknown axes")
    if far(first) and cx.sides_shared(first.star):
        raise NotApplicable("the axes on the other side of the unknown ones may be the joined ones")
    try:
        out = rule([replace(t, shape=Shape(near(t.shape)), optional=False) for t in ts])
    except OpFailed:
        raise NotApplicable("a precondition on the known axes alone") from None
    return _lift(out, first, back)
