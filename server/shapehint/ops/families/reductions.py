"""Reductions (sum/mean/max/.../median/mode), softmax-like ops, topk/sort/kthvalue, count_nonzero.

A reduction removes its dims (or keeps them as 1 with keepdim). With an unknown rank, dims
counted from the end edit the known suffix (`x.sum(-1)` on `[*b, C]` gives `[*b]`), and a
reduction without dim gives a scalar whatever the rank.
"""
from __future__ import annotations

from ...shapes.expr import Expr
from ...shapes.shape import Shape, ge, le, ne
from ...shapes.values import BoolV, DtypeV, ListV, NoneV, TensorV, TupleV
from ..common import apart, broadcast_shapes, dim_list, result_dtype
from ..context import NotApplicable, OpContext
from ..registry import module, op

FLOATS = {"float32", "float64", "float16", "bfloat16", "complex64"}


def _t(x) -> TensorV:
    if not isinstance(x, TensorV):
        raise NotApplicable("input unknown")
    return x


def _dtype_arg(v):
    return v.name if isinstance(v, DtypeV) else None


def _absent(v) -> bool:
    return v is None or isinstance(v, NoneV)


def reduce_shape(cx: OpContext, x: TensorV, dim, keepdim, empty_ok: bool = True, all_if_empty=True,
                 name: str = "") -> Shape:
    """Shape of reducing x over `dim` (None: all dims)."""
    keep = bool(cx.bool_of(keepdim))
    if x.shape.rank is None:
        return _reduce_unknown(cx, x, dim, keep)
    dims = x.shape.dims
    r = len(dims)
    which = dim_list(cx, dim, r)
    if which is not None and not which and all_if_empty:
        which = None
    if which is not None and len(set(which)) != len(which):
        cx.fail(f"{cx.opname}: a dim appears more than once in {which}", "SH107")
    red = list(range(r)) if which is None else which
    if not empty_ok:
        for i in (red if r else []):
            cx.require(ne(dims[i], 0), lambda: f"{cx.opname}: cannot reduce ({name}) over dimension {i} of size 0: the "
                       "operation has no identity", "SH107")
    if which is None and not keep:
        return Shape(())
    if keep:
        return Shape(tuple(Expr.const(1) if i in red else d for i, d in enumerate(dims)))
    return Shape(tuple(d for i, d in enumerate(dims) if i not in red))


def _reduce_unknown(cx: OpContext, x: TensorV, dim, keep: bool) -> Shape:
    if _absent(dim) and not keep:
        return Shape(())
    items = dim.items if isinstance(dim, (TupleV, ListV)) else [dim]
    idx = [cx.const_int(i) for i in (items or [])]
    if _absent(dim) or None in idx or not idx:
        raise NotApplicable("rank unknown")
    for i in idx:
        cx.dim(x, i)  # learn enough of the edges (may fix the rank)
    if x.shape.rank is not None:
        return reduce_shape(cx, x, dim, keep)
    s = apart(cx, x.shape, front=[i for i in idx if i >= 0], back=[-i for i in idx if i < 0])
    one = Expr.const(1)
    pre = [one if i in idx else d for i, d in enumerate(s.dims)]
    suf = [one if (i - len(s.suffix)) in idx else d for i, d in enumerate(s.suffix)]
    if not keep:
        pre = [d for i, d in enumerate(s.dims) if i not in idx]
        suf = [d for i, d in enumerate(s.suffix) if (i - len(s.suffix)) not in idx]
    return Shape(tuple(pre), s.star, tuple(suf))


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
        x = _t(input)
        if float_only:
            _float_only(cx, name, x, dtype)
        return TensorV(reduce_shape(cx, x, dim, keepdim, empty_ok, all_if_empty, name), _out_dtype(name, x, dtype),
                       origin=cx.span)
    rule.__name__ = name
    return rule


# `dim=()` means "all dims" except for all/any (no reduction) and logsumexp (all, kept as 1)
for _n, _kw in {"sum": {}, "nansum": {}, "mean": {"float_only": True}, "nanmean": {"float_only": True},
                "amax": {"empty_ok": False}, "amin": {"empty_ok": False}, "all": {"all_if_empty": False},
                "any": {"all_if_empty": False}}.items():
    op(f"torch.{_n}", f"Tensor.{_n}")(_simple(_n, **_kw))


@op("torch.logsumexp", "Tensor.logsumexp")
def logsumexp(cx: OpContext, input, dim, keepdim=False, *, out=None):
    x = _t(input)
    if isinstance(dim, (TupleV, ListV)) and dim.items is not None and not dim.items:
        keepdim = True
    return TensorV(reduce_shape(cx, x, dim, keepdim), x.dtype, origin=cx.span)


@op("torch.prod", "Tensor.prod")
def prod(cx: OpContext, input, dim=None, keepdim=False, *, dtype=None):
    x = _t(input)
    if isinstance(dim, (TupleV, ListV)):
        raise NotApplicable("prod takes a single dim")
    return TensorV(reduce_shape(cx, x, dim, keepdim), _out_dtype("prod", x, dtype), origin=cx.span)


@op("torch.count_nonzero", "Tensor.count_nonzero")
def count_nonzero(cx: OpContext, input, dim=None):
    x = _t(input)
    return TensorV(reduce_shape(cx, x, dim, False), "int64", origin=cx.span)


def _argreduce(name):
    def rule(cx: OpContext, input, dim=None, keepdim=False):
        x = _t(input)
        if _absent(dim):
            if x.shape.rank is not None and cx.bool_of(keepdim):
                shape = Shape.of([1] * x.shape.rank)
            else:
                shape = Shape(())
            if x.shape.rank is not None:
                reduce_shape(cx, x, None, False, False, name=name)
            return TensorV(shape, "int64", origin=cx.span)
        if isinstance(dim, (TupleV, ListV)):
            raise NotApplicable("single dim expected")
        return TensorV(reduce_shape(cx, x, dim, keepdim, False, name=name), "int64", origin=cx.span)
    rule.__name__ = name
    return rule


op("torch.argmax", "Tensor.argmax")(_argreduce("argmax"))
op("torch.argmin", "Tensor.argmin")(_argreduce("argmin"))


def _pair(cx, shape: Shape, x: TensorV) -> TupleV:
    return TupleV((TensorV(shape, x.dtype, origin=cx.span), TensorV(shape, "int64", origin=cx.span)))


def _maxmin(name):
    def rule(cx: OpContext, input, dim=None, keepdim=False, *, out=None, other=None):
        x = _t(input)
        if isinstance(dim, TensorV) or isinstance(other, TensorV):  # torch.max(a, b): elementwise
            o = dim if isinstance(dim, TensorV) else other
            return TensorV(broadcast_shapes(cx, x.shape, o.shape), result_dtype(x, o), origin=cx.span)
        if _absent(dim):
            return TensorV(reduce_shape(cx, x, None, False, False, name=name), x.dtype, origin=cx.span)
        if isinstance(dim, (TupleV, ListV)):
            raise NotApplicable("single dim expected")
        return _pair(cx, reduce_shape(cx, x, dim, keepdim, False, name=name), x)
    rule.__name__ = name
    return rule


op("torch.max", "Tensor.max")(_maxmin("max"))
op("torch.min", "Tensor.min")(_maxmin("min"))


def _median(name):
    def rule(cx: OpContext, input, dim=None, keepdim=False):
        x = _t(input)
        if _absent(dim):
            return TensorV(reduce_shape(cx, x, None, False), x.dtype, origin=cx.span)
        return _pair(cx, reduce_shape(cx, x, dim, keepdim, False, name=name), x)
    rule.__name__ = name
    return rule


op("torch.median", "Tensor.median")(_median("median"))  # median of an empty tensor is nan, not an error
op("torch.nanmedian", "Tensor.nanmedian")(_median("nanmedian"))


@op("torch.mode", "Tensor.mode")
def mode(cx: OpContext, input, dim=-1, keepdim=False):
    x = _t(input)
    return _pair(cx, reduce_shape(cx, x, dim, keepdim, False, name="mode"), x)


def _stdvar(name, pair=False):
    def rule(cx: OpContext, input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
        x = _t(input)
        if isinstance(dim, BoolV):  # std(x, True): the legacy `unbiased` positional form
            dim, unbiased = None, dim
        _float_only(cx, name, x)
        shape = reduce_shape(cx, x, dim, keepdim)
        t = TensorV(shape, x.dtype, origin=cx.span)
        return TupleV((t, TensorV(shape, x.dtype, origin=cx.span))) if pair else t
    rule.__name__ = name
    return rule


op("torch.std", "Tensor.std")(_stdvar("std"))
op("torch.var", "Tensor.var")(_stdvar("var"))
op("torch.std_mean")(_stdvar("std_mean", True))
op("torch.var_mean")(_stdvar("var_mean", True))


@op("torch.norm", "Tensor.norm")
def norm(cx: OpContext, input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    x = _t(input)
    _float_only(cx, "norm", x, dtype)
    return TensorV(reduce_shape(cx, x, dim, keepdim), _dtype_arg(dtype) or x.dtype, origin=cx.span)


# ---- softmax family -------------------------------------------------------------------------

def _implicit_dim(rank: int) -> int:
    return 0 if rank in (0, 1, 3) else 1


def _softmax(name):
    def rule(cx: OpContext, input, dim=None, _stacklevel=3, dtype=None):
        x = _t(input)
        if x.shape.rank is None:
            if cx.const_int(dim) is None:
                raise NotApplicable("rank unknown")
            return TensorV(x.shape, _dtype_arg(dtype) or x.dtype, origin=cx.span)
        r = x.shape.rank
        if _absent(dim):
            dim = _implicit_dim(r)
        cx.norm_dim(dim, r)
        if x.dtype is not None and x.dtype not in FLOATS and _dtype_arg(dtype) is None:
            cx.fail(f"{cx.opname}: {name} needs a floating-point input, but {cx.label(x)} is {x.dtype}", "SH107")
        return TensorV(x.shape, _dtype_arg(dtype) or x.dtype, origin=cx.span)
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
        fwd.twin = fn  # counted once with its functional form
        return ctor, fwd
    _ctor, _fwd = _make(_fn)
    module(f"torch.nn.{_layer}")(_ctor).forward(_fwd)


@module("torch.nn.Softmax2d")
def Softmax2d(cx: OpContext):
    return None


@Softmax2d.forward
def _softmax2d_fwd(cx: OpContext, m, input):
    """Softmax over the channels of a [C, H, W] or [N, C, H, W] input (dim -3)."""
    x = _t(input)
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
    x = _t(input)
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
    x = _t(input)
    if isinstance(dim, BoolV):  # sort(stable=..., dim=..., descending=...) overloads
        dim = -1
    if x.shape.rank is not None:
        _along(cx, x, dim)
    return _pair(cx, x.shape, x)


@op("torch.argsort", "Tensor.argsort")
def argsort(cx: OpContext, input, dim=-1, descending=False, stable=False):
    x = _t(input)
    if x.shape.rank is not None:
        _along(cx, x, dim)
    return TensorV(x.shape, "int64", origin=cx.span)


@op("torch.kthvalue", "Tensor.kthvalue")
def kthvalue(cx: OpContext, input, k, dim=-1, keepdim=False):
    x = _t(input)
    d = _along(cx, x, dim)
    kk = cx.int_of(k)
    if kk is None:
        raise NotApplicable("k unknown")
    size = x.shape.dims[d] if x.shape.rank else Expr.const(1)
    cx.require(ge(kk, 1), lambda: f"{cx.opname}: k must be at least 1, got {kk}", "SH105")
    cx.require(le(kk, size), lambda: f"{cx.opname}: k={kk} is out of range for dimension {d} of {cx.label(x)} {x.shape} "
               f"(size {size})", "SH105")
    return _pair(cx, reduce_shape(cx, x, dim, keepdim), x)

