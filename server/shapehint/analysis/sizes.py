"""Shapes held in variables when the rank is unknown (issue 28, cause 4): `input_shape =
x.shape[:-1]` of `x: [*batch, C]` is `[*batch]` (`shapes.values.StarSizeV`), `(*input_shape,
-1, self.head_dim)` and `x.size()[:-1] + (h, d)` extend it, and `.view(hidden_shape)` /
`.reshape(*input_shape, -1)` of a tensor with the same segment cancel it (ops/families/views.py).
Only what is exact: a slice that would cut into the unknown segment, a second starred size,
or an item that is not an int gives nothing."""
from __future__ import annotations

from typing import Callable, Optional

from ..shapes.expr import Expr
from ..shapes.shape import Shape
from ..shapes.values import IntV, NoneV, SliceV, StarSizeV, TupleV, UnknownV, Value


def _const(v) -> Optional[int]:
    if v is None or isinstance(v, NoneV):
        return None
    if isinstance(v, IntV) and v.expr.value is not None:
        return v.expr.value
    raise ValueError


def sliced(shape: Shape, idx: Value, apart: bool = False) -> Optional[StarSizeV]:
    """`x.shape[a:b]` of a shape with a variadic segment: what stays of it, when the slice
    cuts only the known sizes before (`a >= 0`) and after (`b < 0`) the segment (`apart`: the
    sizes on either side are surely other axes, so a slice may cut one side and keep the other)."""
    if shape.star is None or not isinstance(idx, SliceV):
        return None
    try:
        start, stop, step = _const(idx.start), _const(idx.stop), _const(idx.step)
    except ValueError:
        return None
    # (sizes both before and after the segment may be the same axes when it is empty — read
    # `x.shape[2]`, then met a Linear — so a slice keeps to a shape with sizes on one side)
    cuts_end = stop is not None and -len(shape.suffix) <= stop < 0 and (apart or not shape.dims) and start in (None, 0)
    cuts_start = stop is None and start is not None and 0 <= start <= len(shape.dims) and (apart or not shape.suffix)
    if step not in (None, 1) or not (cuts_end or cuts_start or start in (None, 0) and stop is None):
        return None
    dims = shape.dims[start or 0:]
    suffix = shape.suffix[:stop] if stop is not None else shape.suffix
    return StarSizeV(Shape(dims, shape.star, suffix))


def open_slice(idx: Value, fresh_star: Callable) -> Value:
    """A slice `sliced` cannot write exactly (`input_shape[1:]` of `[*ids, t]`: `()` for a 1-D
    `ids`, else `[*rest, t]`): sizes, of a number not known, none of them known — a view to
    `(-1,) + input_shape[1:] + (d,)` has the sizes given around them (its last `d`), where it
    had no shape at all. Not a slice: nothing."""
    return StarSizeV(Shape((), fresh_star(None), ())) if isinstance(idx, SliceV) else UnknownV("subscript")


def read_slice(shape: Shape, idx: Value, shared: Callable, view_base: Callable) -> Optional[StarSizeV]:
    """`sliced` of a tensor's shape, on sides apart where its segment's are not `shared`; where its
    own layout cannot answer (`x.shape[:-1]` of `[b, t, *x, d]` after `x.shape[1]` was read), the
    same axes laid out around the segment they were learned from (`[b, *x, d]`: `view_base`)."""
    got = sliced(shape, idx, not shared(shape.star))
    base = view_base(shape) if got is None else None
    return sliced(base, idx, not shared(base.star)) if base is not None else got


def last_axes(shape: Shape, idx: Value) -> list:
    """The axes `x.shape[:-k]` cuts that x's shape does not list yet (`[*x]`: -1 for `[:-1]`),
    to be read (named) before the slice; none for any other slice."""
    if shape.star is None or shape.dims or not isinstance(idx, SliceV):
        return []
    try:
        start, stop, step = _const(idx.start), _const(idx.stop), _const(idx.step)
    except ValueError:
        return []
    if start not in (None, 0) or step not in (None, 1) or stop is None or not -4 <= stop < -len(shape.suffix):
        return []
    return list(range(-len(shape.suffix) - 1, stop - 1, -1))


def displayed(items: list, as_int: Callable[[Value], Optional[Expr]]) -> Optional[StarSizeV]:
    """`(*input_shape, -1, d)` — items with one starred StarSizeV among ints (the starred one
    given as the StarSizeV itself; `as_int`: an item's int, None when it is none): the sizes
    around its segment."""
    stars = [i for i, v in enumerate(items) if isinstance(v, StarSizeV)]
    if len(stars) != 1:
        return None
    k, s = stars[0], items[stars[0]].shape
    ints = [as_int(v) for i, v in enumerate(items) if i != k]
    if any(e is None for e in ints):
        return None
    return StarSizeV(Shape(tuple(ints[:k]) + s.dims, s.star, s.suffix + tuple(ints[k:])))


def added(a: Value, b: Value, as_int) -> Optional[StarSizeV]:
    """`x.size()[:-1] + (h, d)` (or a tuple before it)."""
    if isinstance(a, StarSizeV) and isinstance(b, TupleV):
        return displayed([a] + list(b.items), as_int)
    if isinstance(a, TupleV) and isinstance(b, StarSizeV):
        return displayed(list(a.items) + [b], as_int)
    return None
