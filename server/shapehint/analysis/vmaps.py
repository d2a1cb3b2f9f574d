"""`torch.vmap(func, in_dims, out_dims)` (and `torch.func.vmap`): a function that maps `func`
over one axis of some of its positional arguments. A call of it calls `func` once, on
per-sample arguments (each mapped tensor without its mapped axis), and puts the mapped axis
back into every tensor `func` returns, at `out_dims`. Nested maps (a mask function mapped over
its batch, head, query and key indices in turn) nest: each level strips and restores its own axis.

Only what is exact: the mapped axes and the result's axis must be known (a leading or trailing
axis of a tensor of unknown rank is), every mapped argument a tensor, `in_dims` ints or None
given per positional argument (no nested structures), and `func` must return a tensor or a
tuple of tensors; anything else is unknown. Arguments mapped with different sizes make torch
raise, so on every path that returns, the first mapped size is the size of all of them."""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import Shape
from ..shapes.values import IntV, NoneV, TensorV, TupleV, UnknownV, Value
from .objects import VmapV

PATHS = ("torch.vmap", "torch.func.vmap")
_PARAMS = ("func", "in_dims", "out_dims")
_ZERO = IntV(Expr.const(0))


def make(args: list, kwargs: dict) -> Value:
    """The value of `torch.vmap(...)` (its options `randomness`, `chunk_size` change no shape)."""
    given = dict(zip(_PARAMS, args))
    for k in _PARAMS:
        if k in kwargs:
            given[k] = kwargs[k]
    if "func" not in given or len(args) > len(_PARAMS):
        return UnknownV("vmap")
    return VmapV(given["func"], given.get("in_dims", _ZERO), given.get("out_dims", _ZERO))


def _dim(v: Value) -> Optional[int]:
    return v.expr.value if isinstance(v, IntV) else None


def _in_dims(v: Value, n: int) -> Optional[list]:
    """One int or None per positional argument, else None (not followed)."""
    if _dim(v) is not None:
        return [_dim(v)] * n
    if isinstance(v, TupleV) and v.items is not None and len(v.items) == n:
        out = [None if isinstance(d, NoneV) else _dim(d) for d in v.items]
        if all(o is not None or isinstance(d, NoneV) for o, d in zip(out, v.items)):
            return out
    return None


def _strip(s: Shape, d: int) -> Optional[tuple]:
    """(the size of axis d, the shape without it), else None when that axis is not known."""
    if s.rank is not None:
        if not -s.rank <= d < s.rank:
            return None
        d %= s.rank
        return s.dims[d], Shape(s.dims[:d] + s.dims[d + 1:])
    if 0 <= d < len(s.dims):
        return s.dims[d], Shape(s.dims[:d] + s.dims[d + 1:], s.star, s.suffix)
    if -len(s.suffix) <= d < 0:
        k = len(s.suffix) + d
        return s.suffix[k], Shape(s.dims, s.star, s.suffix[:k] + s.suffix[k + 1:])
    return None


def _put(s: Shape, d: int, size) -> Optional[Shape]:
    """`s` with an axis of `size` inserted at d (as `unsqueeze(d)` counts, then expanded)."""
    if s.rank is not None:
        if not -(s.rank + 1) <= d <= s.rank:
            return None
        d %= s.rank + 1
        return Shape(s.dims[:d] + (size,) + s.dims[d:])
    if 0 <= d <= len(s.dims):
        return Shape(s.dims[:d] + (size,) + s.dims[d:], s.star, s.suffix)
    if -(len(s.suffix) + 1) <= d < 0:
        k = len(s.suffix) + 1 + d
        return Shape(s.dims, s.star, s.suffix[:k] + (size,) + s.suffix[k:])
    return None


def _restored(v: Value, out_dims: Value, size, span) -> Optional[Value]:
    if isinstance(v, TensorV):
        d = _dim(out_dims)
        s = _put(v.shape, d, size) if d is not None else None
        return replace(v, shape=s, origin=span or v.origin) if s is not None else None
    if isinstance(v, TupleV) and v.items is not None:
        per = [out_dims] * len(v.items) if _dim(out_dims) is not None else \
            list(out_dims.items) if isinstance(out_dims, TupleV) and out_dims.items is not None else []
        if len(per) != len(v.items):
            return None
        items = [_restored(i, d, size, span) for i, d in zip(v.items, per)]
        return TupleV(tuple(items)) if all(i is not None for i in items) else None
    return None


def call(it, fn: VmapV, args: list, kwargs: dict, fr, span, node, labels) -> Value:
    """A call of `torch.vmap(func, ...)`: `func` on the per-sample arguments, the mapped axis put
    back in its result."""
    dims = _in_dims(fn.in_dims, len(args))
    if dims is None or all(d is None for d in dims):
        return it.gave_up(fr, args, kwargs, UnknownV("vmap"))
    size, per = None, []
    for a, d in zip(args, dims):
        if d is None:
            per.append(a)
            continue
        cut = _strip(it.resolve(a), d) if isinstance(a, TensorV) else None
        if cut is None:
            return it.gave_up(fr, args, kwargs, UnknownV("vmap"))
        size = cut[0] if size is None else size
        per.append(replace(a.given(), shape=cut[1]))
    out = it.call_value(fn.func, per, kwargs, fr, span, node, labels)
    got = _restored(out, fn.out_dims, size, span)
    return got if got is not None else it.gave_up(fr, args, kwargs, UnknownV("vmap"))
