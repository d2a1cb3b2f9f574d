"""Tensor metadata: size()/shape, dim()/ndim, numel(), item(), backward(), tolist(), stride(),
is_contiguous(), element_size() and the results that carry no shape (data_ptr, numpy, hooks).

`size()` returns a torch.Size of IntVs, so `B, T, C = x.size()` binds symbolic ints; with an
unknown rank, `size(i)` still answers through the context (which learns the tensor's edges).
"""
from __future__ import annotations

from ...shapes.expr import Expr, product
from ...shapes.shape import FALSE, TRUE, eq, ne
from ...shapes.values import BoolV, FloatV, IntV, ListV, NoneV, StarSizeV, TensorV, TupleV, UnknownV
from ..arguments import known_tensor
from ..common import is_contiguous as _is_contiguous, strides_of
from ..context import NotApplicable, OpContext
from ..dtypes import is_floating
from ..registry import op

INTS = {"int64", "int32", "int16", "int8", "uint8"}


@op("Tensor.size")
def size(cx: OpContext, self, dim=None):
    x = known_tensor(self)
    if dim is None or isinstance(dim, NoneV):
        s = x.shape
        if s.rank is None:
            if s.dims and s.suffix and cx.sides_shared(s.star):
                raise NotApplicable("the sizes before and after the unknown axes may be the same axes")
            # the sizes around the unknown axes (`input_shape = input_ids.size()`): unpacking them
            # teaches the rank, a view of a tensor with the same axes cancels them (sizes.py)
            return StarSizeV(s)
        return TupleV(tuple(IntV(d, cx.span) for d in s.dims), is_size=True)
    i = cx.const_int(dim)
    if i is None:
        raise NotApplicable("symbolic dim")
    r = x.shape.rank
    if r is not None:
        if r == 0 or not -r <= i < r:
            lo, hi = (-1, 0) if r == 0 else (-r, r - 1)
            cx.fail(f"{cx.opname}: dimension {i} is out of range for {cx.label(x)} {x.shape} (expected "
                    f"{lo}..{hi})", "SH105")
        return IntV(x.shape.dims[i], cx.span)
    return IntV(cx.dim(x, i), cx.span)


@op("Tensor.dim", "Tensor.ndimension")
def dim(cx: OpContext, self):
    x = known_tensor(self)
    if x.shape.rank is None:
        raise NotApplicable("rank unknown")
    return IntV(Expr.const(x.shape.rank), cx.span)


@op("Tensor.numel", "torch.numel", "Tensor.nelement")
def numel(cx: OpContext, input):
    x = known_tensor(input)
    if x.shape.rank is None:
        raise NotApplicable("rank unknown")
    return IntV(product(x.shape.dims), cx.span)


def _one_element(cx: OpContext, x: TensorV, what: str) -> None:
    if x.shape.rank is None:
        return
    n = product(x.shape.dims)
    cx.require(eq(n, 1), lambda: f"{cx.opname}: {what} needs a tensor with exactly one element, but {cx.label(x)} "
               f"{x.shape} has {n}", "SH109")


@op("Tensor.item")
def item(cx: OpContext, self):
    x = known_tensor(self)
    _one_element(cx, x, "item()")
    if x.dtype in INTS:
        return IntV(cx.fresh("item"), cx.span)  # a data value, not a shape: any int
    return FloatV(None)


@op("Tensor.backward")
def backward(cx: OpContext, self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    x = known_tensor(self)
    if gradient is None or isinstance(gradient, NoneV):
        _one_element(cx, x, "backward() without a gradient argument")
    elif isinstance(gradient, TensorV) and gradient.shape.rank is not None and x.shape.rank is not None:
        if gradient.shape.rank != x.shape.rank:
            cx.fail(f"{cx.opname}: the gradient {gradient.shape} must have the shape of {cx.label(x)} {x.shape}",
                    "SH102")
        for a, b in zip(gradient.shape.dims, x.shape.dims):
            cx.require(eq(a, b), lambda: f"{cx.opname}: the gradient {gradient.shape} must have the shape of "
                       f"{cx.label(x)} {x.shape}", "SH101")
    return NoneV()


@op("Tensor.tolist")
def tolist(cx: OpContext, self):
    """Nested lists, one level per axis, of unknown length, whose innermost items are floats of
    unknown values for a floating dtype (drop-path rates: `torch.linspace(0, p, n).split(depths)`,
    each `.tolist()`). Any other dtype, or an unknown rank, is unknown: a list's items are one
    joined value, and one int symbol for them all would prove them equal."""
    x = known_tensor(self)
    if x.shape.rank is None or x.dtype is None or not is_floating(x.dtype):
        return UnknownV("tolist")
    out = FloatV(None)
    for _ in range(x.shape.rank):
        out = ListV(None, out)
    return out


@op("Tensor.stride")
def stride(cx: OpContext, self, dim=None):
    """Strides from the stride model (common.py): known for contiguous tensors and the views it tracks."""
    x = known_tensor(self)
    st = strides_of(x)
    if st is None:
        raise NotApplicable("strides unknown")
    if dim is None or isinstance(dim, NoneV):
        return TupleV(tuple(IntV(s, cx.span) for s in st))
    i = cx.const_int(dim)
    if i is None:
        raise NotApplicable("symbolic dim")
    return IntV(st[cx.norm_dim(i, len(st))], cx.span)


@op("Tensor.is_contiguous")
def is_contiguous(cx: OpContext, self, memory_format=None):
    x = known_tensor(self)
    if memory_format is not None and not isinstance(memory_format, NoneV):
        return BoolV(None)  # channels_last etc.: not modelled
    if x.contiguous:
        return BoolV(TRUE)
    st = strides_of(x)
    if st is None:
        return BoolV(None)
    if _is_contiguous(cx, x.shape.dims, st):
        return BoolV(TRUE)
    # a symbolic size that may be 1 can make the layout contiguous after all: leave the answer open
    if any(d.value is None and not cx.entails(ne(d, 1)) for d in x.shape.dims):
        return BoolV(None)
    return BoolV(FALSE)


ELEMENT_SIZE = {"float64": 8, "int64": 8, "complex64": 8, "complex128": 16, "float32": 4, "int32": 4,
                "float16": 2, "bfloat16": 2, "int16": 2, "int8": 1, "uint8": 1, "bool": 1}


@op("Tensor.element_size")
def element_size(cx: OpContext, self):
    x = known_tensor(self)
    if x.dtype not in ELEMENT_SIZE:
        raise NotApplicable("dtype unknown")
    return IntV(Expr.const(ELEMENT_SIZE[x.dtype]), cx.span)


@op("Tensor.storage_offset", "Tensor.data_ptr", "Tensor.numpy")
def opaque(cx: OpContext, self, *args, **kwargs):
    # values, not shapes: a storage offset or an address is data the analysis does not track
    known_tensor(self)
    return UnknownV(cx.opname)


@op("Tensor.retain_grad")
def retain_grad(cx: OpContext, self):
    known_tensor(self)
    return NoneV()


@op("Tensor.register_hook")
def register_hook(cx: OpContext, self, hook):
    known_tensor(self)
    return UnknownV("a RemovableHandle")
