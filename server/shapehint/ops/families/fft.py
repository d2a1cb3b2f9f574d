"""torch.fft: 1-D (n, dim), 2-D and N-D (s, dim) transforms, shifts and sample frequencies.

A transformed dim becomes the requested signal length (n or s[i]; -1 keeps it). The one-sided real
transforms (rfft*, ihfft*) give the last transformed dim n//2 + 1; their inverses (irfft*, hfft*)
default that dim to 2*(m - 1). Lengths must be >= 1 ("Invalid number of data points").
"""
from __future__ import annotations

from ...shapes.expr import Expr
from ...shapes.shape import ge
from ...shapes.values import TensorV
from ..arguments import ranked_tensor
from ..common import dim_list
from ..context import NotApplicable, OpContext
from ..registry import op

COMPLEX = {"complex32", "complex64", "complex128"}


def _complex_of(dt):
    """The complex dtype an FFT of `dt` gives (integers and bool compute in float32)."""
    if dt is None or dt in COMPLEX:
        return dt
    return {"float16": "complex32", "float64": "complex128"}.get(dt, "complex64")


def _real_of(dt):
    return {"complex32": "float16", "complex128": "float64", "float16": "float16", "float64": "float64"}.get(dt, "float32")


def _transform(cx: OpContext, x: TensorV, s, dim, kind: str, default_dims) -> TensorV:
    """kind: 'c2c' (fft/ifft), 'r2c' (rfft/ihfft: last dim halves), 'c2r' (irfft/hfft: last dim from 2*(m-1))."""
    r = x.shape.rank
    sizes = None if cx.is_none(s) else cx.ints_of(s)
    if not cx.is_none(s) and sizes is None:
        raise NotApplicable("signal sizes unknown")
    dims = dim_list(cx, dim, r)
    if dims is None:
        if sizes is not None:
            if len(sizes) > r:
                cx.fail(f"{cx.opname}: got shape with {len(sizes)} values but input tensor {x.shape} only has {r} "
                        "dimensions", "SH102")
            dims = list(range(r - len(sizes), r))
        else:
            dims = [cx.norm_dim(d, r) for d in default_dims(r)]
    elif sizes is not None and len(sizes) != len(dims):
        cx.fail(f"{cx.opname}: when given, dim and shape arguments must have the same length, got {len(dims)} and "
                f"{len(sizes)}", "SH107")
    if len(set(dims)) != len(dims):
        cx.fail(f"{cx.opname}: FFT dims must be unique, got {dims}", "SH107")
    if kind == "r2c" and x.dtype in COMPLEX:
        cx.fail(f"{cx.opname} expects a real input tensor, but {cx.label(x)} is {x.dtype}", "SH107")
    out = list(x.shape.dims)
    for i, d in enumerate(dims):
        n = sizes[i] if sizes is not None else None
        if n is not None and n.value == -1:
            n = None
        last = i == len(dims) - 1
        if n is None:
            n = Expr.const(2) * (out[d] - 1) if kind == "c2r" and last else out[d]
        cx.require(ge(n, 1), lambda: f"{cx.opname}: invalid number of data points ({n}) specified for dimension {d}",
                   "SH107")
        out[d] = n // 2 + 1 if kind == "r2c" and last else n
    dtype = _real_of(x.dtype) if kind == "c2r" else _complex_of(x.dtype)
    return cx.tensor(out, dtype=dtype)


def _last(r):
    return [-1]


def _last2(r):
    return [-2, -1]


def _all(r):
    return list(range(r))


def _one_d(kind: str):
    def rule(cx: OpContext, input, n=None, dim=-1, norm=None, *, out=None):
        x = ranked_tensor(input)
        if x.shape.rank == 0:
            d = cx.const_int(dim)
            if d is None:
                raise NotApplicable("dim unknown")
            cx.fail(f"{cx.opname}: dimension {d} is out of range for a scalar input", "SH105")
        return _transform(cx, x, None if cx.is_none(n) else (n,), (dim,), kind, _last)
    return rule


def _n_d(kind: str, defaults):
    def rule(cx: OpContext, input, s=None, dim=None, norm=None, *, out=None):
        x = ranked_tensor(input)
        d = dim
        if cx.is_none(dim) and defaults is _last2:
            d = (-2, -1)
            if x.shape.rank < 2:
                cx.fail(f"{cx.opname}: a 2-D transform needs at least 2 dimensions, but {cx.label(x)} is "
                        f"{x.shape.rank}D {x.shape}", "SH105")
        return _transform(cx, x, s, d, kind, defaults)
    return rule


for _kind, _names in {"c2c": ("fft", "ifft"), "r2c": ("rfft", "ihfft"), "c2r": ("irfft", "hfft")}.items():
    for _n in _names:
        op(f"torch.fft.{_n}")(_one_d(_kind))
        op(f"torch.fft.{_n}2")(_n_d(_kind, _last2))
        op(f"torch.fft.{_n}n")(_n_d(_kind, _all))


@op("torch.fft.fftshift", "torch.fft.ifftshift")
def fftshift(cx: OpContext, input, dim=None):
    x = ranked_tensor(input)
    dim_list(cx, dim, x.shape.rank)
    return cx.tensor(x.shape, like=x)


@op("torch.fft.fftfreq")
def fftfreq(cx: OpContext, n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    k = cx.int_of(n)
    if k is None:
        raise NotApplicable("n unknown")
    return cx.tensor([k], dtype="float32")


@op("torch.fft.rfftfreq")
def rfftfreq(cx: OpContext, n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    k = cx.int_of(n)
    if k is None:
        raise NotApplicable("n unknown")
    return cx.tensor([k // 2 + 1], dtype="float32")
