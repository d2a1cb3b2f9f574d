"""Reductions (sum/mean/max/.../median/mode), softmax-like ops, topk/sort/kthvalue, count_nonzero.

A reduction removes its dims (or keeps them as 1 with keepdim). With an unknown rank, dims
counted from the end edit the known suffix (`x.sum(-1)` on `[*b, C]` gives `[*b]`), and a
reduction without dim gives a scalar whatever the rank.
"""
from __future__ import annotations

from ...shapes.expr import Expr
from ...shapes.shape import Shape, ge, le, ne
from ...shapes.values import BoolV, DtypeV, ListV, NoneV, TensorV, TupleV
from ..arguments import known_tensor
from ..common import broadcast_shapes, result_dtype
from ..context import NotApplicable, OpContext
from ..edges import axiswise
from ..reducing import reduce_shape
from ..registry import module, op

FLOATS = {"float32", "float64", "float16", "bfloat16", "complex64"}


def _dtype_arg(v):
    return v.name if isinstance(v, DtypeV) else None


def _absent(v) -> bool:
    return v is None or isinstance(v, NoneV)


def _out_dtype(name: str, x: TensorV, dtype=None):
    dt = _dtype_arg(dtype)
    if dt:
        return dt
    if name in ("all", "any"):
        return "bool"
    if name in ("argmax", "argmin", "count_nonzero"):
        return "int64"
    if name in ("sum", "prod", "nansum") and x.dtype in ("bool", "int32", "int16", "int8", "uint8"):
        return "int64"
    return x.dtype


def _float_only(cx: OpContext, name: str, x: TensorV, dtype=None):
    if x.dtype is not None and x.dtype not in FLOATS and _dtype_arg(dtype) is None:
        cx.fail(f"{cx.opname}: {name}() needs a floating-point input, but {cx.label(x)} is {x.dtype}; "
                "convert with .float() first", "SH107")


def _simple(name: str, float_only=False, empty_ok=True, all_if_empty=True):
    def rule(cx: OpContext, input, dim=None, keepdim=False, *, dtype=None, out=None):
        x = known_tensor(input)
        if float_only:
            _float_only(cx, name, x, dtype)
        return cx.tensor(reduce_shape(cx, x, dim, keepdim, empty_ok, all_if_empty, name),
                         dtype=_out_dtype(name, x, dtype))
    rule.__name__ = name
    return rule


# `dim=()` means "all dims" except for all/any (no reduction) and logsumexp (all, kept as 1)
for _n, _kw in {"sum": {}, "nansum": {}, "mean": {"float_only": True}, "nanmean": {"float_only": True},
                "amax": {"empty_ok": False}, "amin": {"empty_ok": False}, "all": {"all_if_empty": False},
                "any": {"all_if_empty": False}}.items():
    op(f"torch.{_n}", f"Tensor.{_n}")(_simple(_n, **_kw))


@op("torch.logsumexp", "Tensor.logsumexp")
def logsumexp(cx: OpContext, input, dim, keepdim=False, *, out=None):
    x = known_tensor(input)
    if isinstance(dim, (TupleV, ListV)) and dim.items is not None and not dim.items:
        keepdim = True
    return cx.tensor(reduce_shape(cx, x, dim, keepdim), dtype=x.dtype)


@op("torch.prod", "Tensor.prod")
def prod(cx: OpContext, input, dim=None, keepdim=False, *, dtype=None):
    x = known_tensor(input)
    if isinstance(dim, (TupleV, ListV)):
        raise NotApplicable("prod takes a single dim")
    return cx.tensor(reduce_shape(cx, x, dim, keepdim), dtype=_out_dtype("prod", x, dtype))


@op("torch.count_nonzero", "Tensor.count_nonzero")
def count_nonzero(cx: OpContext, input, dim=None):
    x = known_tensor(input)
    return cx.tensor(reduce_shape(cx, x, dim, False), dtype="int64")


def _argreduce(name):
    def rule(cx: OpContext, input, dim=None, keepdim=False):
        x = known_tensor(input)
        if _absent(dim):
            if x.shape.rank is not None and cx.bool_of(keepdim):
                shape = Shape.of([1] * x.shape.rank)
            else:
                shape = Shape(())
            if x.shape.rank is not None:
                reduce_shape(cx, x, None, False, False, name=name)
            return cx.tensor(shape, dtype="int64")
        if isinstance(dim, (TupleV, ListV)):
            raise NotApplicable("single dim expected")
        return cx.tensor(reduce_shape(cx, x, dim, keepdim, False, name=name), dtype="int64")
    rule.__name__ = name
    return rule


op("torch.argmax", "Tensor.argmax")(_argreduce("argmax"))
op("torch.argmin", "Tensor.argmin")(_argreduce("argmin"))


def _pair(cx, shape: Shape, x: TensorV) -> TupleV:
    return TupleV((cx.tensor(shape, dtype=x.dtype), cx.tensor(shape, dtype="int64")))


def _maxmin(name):
    def rule(cx: OpContext, input, dim=None, keepdim=False, *, out=None, other=None):
        x = known_tensor(input)
        if isinstance(dim, TensorV) or isinstance(other, TensorV):  # torch.max(a, b): elementwise
            o = dim if isinstance(dim, TensorV) else other
            return cx.tensor(broadcast_shapes(cx, x.shape, o.shape), dtype=result_dtype(x, o))
        if _absent(dim):
            return cx.tensor(reduce_shape(cx, x, None, False, False, name=name), dtype=x.dtype)
        if isinstance(dim, (TupleV, ListV)):
            raise NotApplicable("single dim expected")
        return _pair(cx, reduce_shape(cx, x, dim, keepdim, False, name=name), x)
    rule.__name__ = name
    return rule


op("torch.max", "Tensor.max")(_maxmin("max"))
op("torch.min", "Tensor.min")(_maxmin("min"))


def _median(name):
    def rule(cx: OpContext, input, dim=None, keepdim=False):
        x = known_tensor(input)
        if _absent(dim):
            return cx.tensor(reduce_shape(cx, x, None, False), dtype=x.dtype)
        return _pair(cx, reduce_shape(cx, x, dim, keepdim, False, name=name), x)
    rule.__name__ = name
    return rule


op("torch.median", "Tensor.median")(_median("median"))  # median of an empty tensor is nan, not an error
op("torch.nanmedian", "Tensor.nanmedian")(_median("nanmedian"))


@op("torch.mode", "Tensor.mode")
def mode(cx: OpContext, input, dim=-1, keepdim=False):
    x = known_tensor(input)
    return _pair(cx, reduce_shape(cx, x, dim, keepdim, False, name="mode"), x)


def _stdvar(name, pair=False):
    def rule(cx: OpContext, input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
        x = known_tensor(input)
        if isinstance(dim, BoolV):  # std(x, True): the legacy `unbiased` positional form
            dim, unbiased = None, dim
        _float_only(cx, name, x)
        shape = reduce_shape(cx, x, dim, keepdim)
        t = cx.tensor(shape, dtype=x.dtype)
        return TupleV((t, cx.tensor(shape, dtype=x.dtype))) if pair else t
    rule.__name__ = name
    return rule


op("torch.std", "Tensor.std")(_stdvar("std"))
op("torch.var", "Tensor.var")(_stdvar("var"))
op("torch.std_mean")(_stdvar("std_mean", True))
op("torch.var_mean")(_stdvar("var_mean", True))


@op("torch.norm", "Tensor.norm")
def norm(cx: OpContext, input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    x = known_tensor(input)
    _float_only(cx, "norm", x, dtype)
    return cx.tensor(reduce_shape(cx, x, dim, keepdim), dtype=_dtype_arg(dtype) or x.dtype)


# ---- softmax family -------------------------------------------------------------------------

def _implicit_dim(rank: int) -> int:
    return 0 if rank in (0, 1, 3) else 1


def _softmax(name):
    def rule(cx: OpContext, input, dim=None, _stacklevel=3, dtype=None):
        x = known_tensor(input)
        if x.shape.rank is None:
            if cx.const_int(dim) is None:
                raise NotApplicable("rank unknown")
            return axiswise(cx, x, [cx.const_int(dim)], lambda t: rule(cx, t, dim, _stacklevel, dtype))
        r = x.shape.rank
        if _absent(dim):
            dim = _implicit_dim(r)
        cx.norm_dim(dim, r)
        if x.dtype is not None and x.dtype not in FLOATS and _dtype_arg(dtype) is None:
            cx.fail(f"{cx.opname}: {name} needs a floating-point input, but {cx.label(x)} is {x.dtype}", "SH107")
        return cx.tensor(x.shape, dtype=_dtype_arg(dtype) or x.dtype)
    rule.__name__ = name
    return rule


for _n, _layer in (("softmax", "Softmax"), ("log_softmax", "LogSoftmax"), ("softmin", "Softmin")):
    _fn = _softmax(_n)
    _names = [f"Tensor.{_n}"] + ([f"torch.{_n}", f"torch.special.{_n}"] if _n != "softmin" else [])
    op(f"torch.nn.functional.{_n}", *_names)(_fn)

    def _make(fn):
        def ctor(cx, dim=None):
            return None

        def fwd(cx, m, input):
            return fn(cx, input, m.cfg.get("dim"))
        return ctor, fwd
    _ctor, _fwd = _make(_fn)
    module(f"torch.nn.{_layer}")(_ctor).forward(_fwd, twin=_fn)


@module("torch.nn.Softmax2d")
def Softmax2d(cx: OpContext):
    return None


@Softmax2d.forward
def _softmax2d_fwd(cx: OpContext, m, input):
    """Softmax over the channels of a [C, H, W] or [N, C, H, W] input (dim -3)."""
    x = known_tensor(input)
    r = len(cx.dims(x, (4, 3)))
    return _softmax("softmax")(cx, x, r - 3)


# ---- topk / sort / kthvalue -----------------------------------------------------------------

def _along(cx: OpContext, x: TensorV, dim) -> int:
    r = x.shape.rank
    if r is None:
        raise NotApplicable("rank unknown")
    return cx.norm_dim(dim, r)


@op("torch.topk", "Tensor.topk")
def topk(cx: OpContext, input, k, dim=-1, largest=True, sorted=True):
    x = known_tensor(input)
    d = _along(cx, x, dim)
    kk = cx.int_of(k)
    if kk is None:
        raise NotApplicable("k unknown")
    size = x.shape.dims[d] if x.shape.rank else Expr.const(1)
    cx.require(ge(kk, 0), lambda: f"{cx.opname}: k must be non-negative, got {kk}", "SH107")
    cx.require(le(kk, size), lambda: f"{cx.opname}: k={kk} is larger than dimension {d} of {cx.label(x)} {x.shape} "
               f"(size {size})", "SH105")
    if not x.shape.rank:
        return _pair(cx, x.shape, x)
    dims = list(x.shape.dims)
    dims[d] = kk
    return _pair(cx, Shape(tuple(dims)), x)


@op("torch.sort", "Tensor.sort")
def sort(cx: OpContext, input, dim=-1, descending=False, stable=None):
    x = known_tensor(input)
    if isinstance(dim, BoolV):  # sort(stable=..., dim=..., descending=...) overloads
        dim = -1
    if x.shape.rank is not None:
        _along(cx, x, dim)
    return _pair(cx, x.shape, x)


@op("torch.argsort", "Tensor.argsort")
def argsort(cx: OpContext, input, dim=-1, descending=False, stable=False):
    x = known_tensor(input)
    if x.shape.rank is not None:
        _along(cx, x, dim)
    return cx.tensor(x.shape, dtype="int64")


@op("torch.kthvalue", "Tensor.kthvalue")
def kthvalue(cx: OpContext, input, k, dim=-1, keepdim=False):
    x = known_tensor(input)
    d = _along(cx, x, dim)
    kk = cx.int_of(k)
    if kk is None:
        raise NotApplicable("k unknown")
    size = x.shape.dims[d] if x.shape.rank else Expr.const(1)
    cx.require(ge(kk, 1), lambda: f"{cx.opname}: k must be at least 1, got {kk}", "SH105")
    cx.require(le(kk, size), lambda: f"{cx.opname}: k={kk} is out of range for dimension {d} of {cx.label(x)} {x.shape} "
               f"(size {size})", "SH105")
    return _pair(cx, reduce_shape(cx, x, dim, keepdim), x)

