"""Scans and order statistics along a dim: cummax/cummin/logcumsumexp, diff, aminmax, quantile,
bucketize/searchsorted.

Scans keep the input's shape (a 0-dim input accepts dim 0 or -1); `diff` shortens its dim by `n`
after prepend/append (never below 0); quantile reduces like a reduction and prepends a dim of len(q)
when q is a 1D tensor.
"""
from __future__ import annotations

from ...shapes.expr import Expr, emax
from ...shapes.shape import Shape, eq, ge
from ...shapes.values import TensorV, TupleV
from ..arguments import ranked_tensor
from ..context import NotApplicable, OpContext
from ..reducing import reduce_shape
from ..registry import op


@op("torch.cummax", "Tensor.cummax", "torch.cummin", "Tensor.cummin")
def cummax(cx: OpContext, input, dim, *, out=None):
    x = ranked_tensor(input)
    cx.norm_dim(dim, x.shape.rank)
    return TupleV((cx.tensor(x.shape, like=x), cx.tensor(x.shape, dtype="int64")))


@op("torch.logcumsumexp", "Tensor.logcumsumexp")
def logcumsumexp(cx: OpContext, input, dim, *, out=None):
    x = ranked_tensor(input)
    cx.norm_dim(dim, x.shape.rank)
    return cx.tensor(x.shape, like=x)


@op("torch.diff", "Tensor.diff")
def diff(cx: OpContext, input, n=1, dim=-1, prepend=None, append=None):
    x = ranked_tensor(input)
    r = x.shape.rank
    if r == 0:
        cx.fail(f"{cx.opname}: diff expects input to be at least one-dimensional, but {cx.label(x)} is a scalar",
                "SH102")
    k = cx.norm_dim(dim, r)
    order = cx.int_of(n)
    if order is None:
        raise NotApplicable("order unknown")
    cx.require(ge(order, 0), lambda: f"{cx.opname}: order must be non-negative but got {order}", "SH107")
    size = x.shape.dims[k]
    for what, extra in (("prepend", prepend), ("append", append)):
        if cx.is_none(extra):
            continue
        e = ranked_tensor(extra)
        if e.shape.rank != r:
            cx.fail(f"{cx.opname}: diff expects {what} ({e.shape}) to have the same number of dimensions as "
                    f"{cx.label(x)} {x.shape}", "SH102")
        for i, (a, b) in enumerate(zip(x.shape.dims, e.shape.dims)):
            if i != k:
                cx.require(eq(a, b), lambda: f"{cx.opname}: diff expects {what} {e.shape} to match {cx.label(x)} {x.shape} "
                           f"except along dimension {k}, but dimension {i} is {b} vs {a}", "SH101")
        size = size + e.shape.dims[k]
    dims = list(x.shape.dims)
    dims[k] = emax(size - order, 0)
    return cx.tensor(dims, like=x)


@op("torch.aminmax", "Tensor.aminmax")
def aminmax(cx: OpContext, input, *, dim=None, keepdim=False, out=None):
    x = ranked_tensor(input)
    s = reduce_shape(cx, x, dim, keepdim, empty_ok=False, name="aminmax")
    return TupleV((cx.tensor(s, like=x), cx.tensor(s, like=x)))


@op("torch.quantile", "Tensor.quantile", "torch.nanquantile", "Tensor.nanquantile")
def quantile(cx: OpContext, input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    x = ranked_tensor(input)
    lead: tuple = ()
    if isinstance(q, TensorV):
        qs = ranked_tensor(q)
        if qs.shape.rank > 1:
            cx.fail(f"{cx.opname}: quantile() q must be a scalar or 1D tensor, but got {qs.shape.rank}D {qs.shape}",
                    "SH102")
        lead = qs.shape.dims
    if cx.is_none(dim):
        # over the flattened input: keepdim keeps every dim as 1
        rest = (Expr.const(1),) * x.shape.rank if cx.bool_of(keepdim) else ()
        return cx.tensor(lead + rest, like=x)
    return cx.tensor(lead + reduce_shape(cx, x, dim, keepdim).dims, like=x)


@op("torch.bucketize")
def bucketize(cx: OpContext, input, boundaries, *, out_int32=False, right=False, out=None):
    b = ranked_tensor(boundaries)
    if b.shape.rank != 1:
        cx.fail(f"{cx.opname}: boundaries tensor must be 1 dimension, but {cx.label(b)} is {b.shape.rank}D "
                f"{b.shape}", "SH102")
    dims = ranked_tensor(input).shape if isinstance(input, TensorV) else Shape(())
    return cx.tensor(dims, dtype="int32" if cx.bool_of(out_int32) else "int64")


@op("torch.searchsorted")
def searchsorted(cx: OpContext, sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None,
                 out=None):
    b = ranked_tensor(sorted_sequence)
    dtype = "int32" if cx.bool_of(out_int32) else "int64"
    if not isinstance(input, TensorV):  # a scalar value
        if b.shape.rank != 1:
            cx.fail(f"{cx.opname}: a scalar value needs a 1D boundaries tensor, but {cx.label(b)} is "
                    f"{b.shape.rank}D {b.shape}", "SH102")
        return cx.tensor([], dtype=dtype)
    x = ranked_tensor(input)
    if b.shape.rank != 1:
        bad = lambda: (f"{cx.opname}: the first N-1 dimensions of the boundaries {b.shape} and of the values {x.shape} "
                       "must match")
        if b.shape.rank != x.shape.rank:
            cx.fail(bad, "SH102")
        for p, q in zip(b.shape.dims[:-1], x.shape.dims[:-1]):
            cx.require(eq(p, q), bad, "SH101")
    return cx.tensor(x.shape, dtype=dtype)
