"""Pooling: max/avg/lp pooling 1d-3d, adaptive pooling, max-unpooling, fractional max pooling 2d/3d,
functional and nn layers.

Output sizes follow ATen's pooling_output_shape. With ceil_mode PyTorch rounds up but drops a
last window that would start in the right padding; that equals
    min(floor((H + 2p - d(k-1) - 1 + s - 1) / s) + 1, ceil((H + p) / s))
(the second term counts window starts inside input + left padding), which stays a plain
expression for symbolic H instead of a case split.
"""
from __future__ import annotations

from ...shapes.expr import Expr, emin
from ...shapes.shape import conj, ge, gt, le, lt
from ...shapes.values import ListV, TensorV, TupleV
from ..arguments import int_args, positive
from ..context import NotApplicable, OpContext
from ..registry import module, op
from ..windows import split_batch


def pool_out(h, k, s, p, d, ceil: bool) -> Expr:
    h = Expr.lift(h)
    span = d * (k - 1) + 1
    if not ceil:
        return (h + 2 * p - span) // s + 1
    up = (h + 2 * p - span + s - 1) // s + 1
    s_, p_, span_ = Expr.lift(s).value, Expr.lift(p).value, Expr.lift(span).value
    if None not in (s_, p_, span_) and s_ + p_ <= span_:
        # the last window starts at most H + 2p - span + s - 1 < H + p: never dropped, whatever H
        # (so a chain of pools stays a plain floor division, readable and cheap for the solver)
        return up
    return emin(up, (h + p + s - 1) // s)


def _stride(cx: OpContext, stride, ks, nsp):
    if cx.is_none(stride) or (isinstance(stride, (TupleV, ListV, tuple, list)) and
                              len(getattr(stride, "items", stride) or ()) == 0):
        return list(ks)  # PyTorch: stride defaults to the kernel size
    return int_args(cx, stride, nsp, "stride")


def pool_core(cx: OpContext, nsp: int, x, ks, stride, padding, dilation, ceil: bool, kind: str) -> TensorV:
    if not isinstance(x, TensorV):
        raise NotApplicable("input unknown")
    batch, c, sp = split_batch(cx, x, nsp + 1)
    positive(cx, ks, "kernel_size")
    positive(cx, stride, "stride")
    positive(cx, dilation, "dilation")
    positive(cx, padding, "padding", lo=0)
    out = []
    for i in range(nsp):
        h, k, s, p, d = sp[i], ks[i], stride[i], padding[i], dilation[i]
        cx.require(le(2 * p, k), lambda: f"{cx.opname}: padding ({p}) should be at most half of the kernel size ({k})",
                   "SH107")
        if kind == "avg" and nsp == 3:  # ATen's avg_pool3d also wants the unpadded input to cover the kernel
            cx.require(ge(h, k), lambda: f"{cx.opname}: {cx.label(x)} has size {h} at spatial dimension {i}, smaller "
                       f"than the kernel size {k}", "SH107")
        o = pool_out(h, k, s, p, d, ceil)
        cx.require(ge(o, 1), lambda: f"{cx.opname}: {cx.label(x)} is too small at spatial dimension {i}: size {h} "
                   f"with padding {p} gives an output size of {o} for kernel {k}", "SH107")
        out.append(o)
    return cx.tensor(batch + (c,) + tuple(out), like=x)


def _maybe_indices(cx: OpContext, out: TensorV, return_indices):
    ri = cx.bool_of(return_indices)
    if ri is None:
        raise NotApplicable("return_indices unknown")
    if not ri:
        return out
    return TupleV((out, cx.tensor(out.shape, dtype="int64")))


def _max_fn(nsp: int):
    def rule(cx: OpContext, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
             return_indices=False):
        ks = int_args(cx, kernel_size, nsp, "kernel_size")
        out = pool_core(cx, nsp, input, ks, _stride(cx, stride, ks, nsp), int_args(cx, padding, nsp, "padding"),
                        int_args(cx, dilation, nsp, "dilation"), bool(cx.bool_of(ceil_mode)), "max")
        return _maybe_indices(cx, out, return_indices)
    return rule


def _avg_fn(nsp: int):
    def rule(cx: OpContext, input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None):
        ks = int_args(cx, kernel_size, nsp, "kernel_size")
        if not cx.is_none(divisor_override):
            dv = cx.int_of(divisor_override)
            if dv is not None:
                cx.require(gt(dv, 0), lambda: f"{cx.opname}: divisor_override must be positive, "
                           f"got {dv}", "SH107")
        return pool_core(cx, nsp, input, ks, _stride(cx, stride, ks, nsp), int_args(cx, padding, nsp, "padding"),
                         [Expr.const(1)] * nsp, bool(cx.bool_of(ceil_mode)), "avg")
    return rule


def _lp_fn(nsp: int):
    def rule(cx: OpContext, input, norm_type, kernel_size, stride=None, ceil_mode=False):
        ks = int_args(cx, kernel_size, nsp, "kernel_size")
        zero = [Expr.const(0)] * nsp
        return pool_core(cx, nsp, input, ks, _stride(cx, stride, ks, nsp), zero, [Expr.const(1)] * nsp,
                         bool(cx.bool_of(ceil_mode)), "lp")
    return rule


_MAX, _AVG, _LP = {}, {}, {}
for _n in (1, 2, 3):
    _MAX[_n] = op(f"torch.nn.functional.max_pool{_n}d", f"torch.nn.functional.max_pool{_n}d_with_indices",
                  f"torch.max_pool{_n}d")(_max_fn(_n))
    _AVG[_n] = op(f"torch.nn.functional.avg_pool{_n}d", *([f"torch.avg_pool{_n}d"] if _n == 1 else []))(_avg_fn(_n))
    _LP[_n] = op(f"torch.nn.functional.lp_pool{_n}d")(_lp_fn(_n))


# ---- adaptive pooling -----------------------------------------------------------------------

def adaptive_core(cx: OpContext, nsp: int, x, output_size) -> TensorV:
    if not isinstance(x, TensorV):
        raise NotApplicable("input unknown")
    batch, c, sp = split_batch(cx, x, nsp + 1)
    if isinstance(output_size, (TupleV, ListV, tuple, list)):
        items = list(getattr(output_size, "items", output_size) or ())
        if len(items) != nsp:
            cx.fail(f"{cx.opname}: output_size must have {nsp} elements, got {len(items)}", "SH107")
    else:
        items = [output_size] * nsp
    out = []
    for i, v in enumerate(items):
        if cx.is_none(v):
            out.append(sp[i])  # None keeps the input size
            continue
        e = cx.int_of(v)
        if e is None:
            raise NotApplicable("output_size unknown")
        cx.require(ge(e, 0), lambda: f"{cx.opname}: output_size must be non-negative, got {e}", "SH107")
        out.append(e)
    return cx.tensor(batch + (c,) + tuple(out), like=x)


def _adaptive_avg_fn(nsp: int):
    def rule(cx: OpContext, input, output_size):
        return adaptive_core(cx, nsp, input, output_size)
    return rule


def _adaptive_max_fn(nsp: int):
    def rule(cx: OpContext, input, output_size, return_indices=False):
        return _maybe_indices(cx, adaptive_core(cx, nsp, input, output_size), return_indices)
    return rule


_AAVG, _AMAX = {}, {}
for _n in (1, 2, 3):
    _AAVG[_n] = op(f"torch.nn.functional.adaptive_avg_pool{_n}d", f"torch.adaptive_avg_pool{_n}d")(_adaptive_avg_fn(_n))
    _AMAX[_n] = op(f"torch.nn.functional.adaptive_max_pool{_n}d",
                   f"torch.nn.functional.adaptive_max_pool{_n}d_with_indices")(_adaptive_max_fn(_n))


# ---- max unpooling ----------------------------------------------------------------------------

def unpool_core(cx: OpContext, nsp: int, x, indices, ks, stride, padding, output_size) -> TensorV:
    if not isinstance(x, TensorV):
        raise NotApplicable("input unknown")
    batch, c, sp = split_batch(cx, x, nsp + 1)
    if isinstance(indices, TensorV) and indices.shape.rank is not None and x.shape.rank is not None:
        if indices.shape.rank != x.shape.rank:
            cx.fail(f"{cx.opname}: indices must have the shape of the input {x.shape}, got {indices.shape}", "SH101")
        for a, b in zip(indices.shape.dims, x.shape.dims):
            cx.require(conj(ge(a, b), le(a, b)), lambda: f"{cx.opname}: indices must have the shape of the input "
                       f"{x.shape}, got {indices.shape}", "SH101")
    default = [(sp[i] - 1) * stride[i] + ks[i] - 2 * padding[i] for i in range(nsp)]
    if cx.is_none(output_size):
        out = default
    else:
        items = list(getattr(output_size, "items", output_size) or ())
        if len(items) == nsp + 2:
            items = items[2:]
        if len(items) != nsp:
            cx.fail(f"{cx.opname}: output_size should have {nsp} or {nsp + 2} elements, got {len(items)}", "SH107")
        out = [cx.int_of(v) for v in items]
        if any(o is None for o in out):
            raise NotApplicable("output_size unknown")
        for i in range(nsp):
            cx.require(conj(lt(default[i] - stride[i], out[i]), lt(out[i], default[i] + stride[i])),
                       lambda: f"{cx.opname}: output_size {out[i]} at spatial dimension {i} must be between "
                       f"{default[i] - stride[i]} and {default[i] + stride[i]} (exclusive)", "SH107")
    for i, o in enumerate(out):
        cx.require(ge(o, 0), lambda: f"{cx.opname}: the output size at spatial dimension {i} would be {o}", "SH107")
    return cx.tensor(batch + (c,) + tuple(out), like=x)


def _unpool_fn(nsp: int):
    def rule(cx: OpContext, input, indices, kernel_size, stride=None, padding=0, output_size=None):
        ks = int_args(cx, kernel_size, nsp, "kernel_size")
        return unpool_core(cx, nsp, input, indices, ks, _stride(cx, stride, ks, nsp),
                           int_args(cx, padding, nsp, "padding"), output_size)
    return rule


_UNPOOL = {_n: op(f"torch.nn.functional.max_unpool{_n}d")(_unpool_fn(_n)) for _n in (1, 2, 3)}


# ---- layers (each forwards to its functional twin, counted once) ---------------------------------

def _twin(rule, fn, call):
    def fwd(cx: OpContext, m, input, *args, **kwargs):
        return call(cx, m, input, *args, **kwargs)
    rule.forward(fwd, twin=fn)


def _layers(nsp: int) -> None:
    def max_ctor(cx, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        return None
    _twin(module(f"torch.nn.MaxPool{nsp}d")(max_ctor), _MAX[nsp],
          lambda cx, m, x: _MAX[nsp](cx, x, **{k: m.cfg[k] for k in ("kernel_size", "stride", "padding",
                                                                     "dilation", "ceil_mode", "return_indices")}))

    if nsp == 1:
        def avg_ctor(cx, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
            return None
    else:
        def avg_ctor(cx, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                     divisor_override=None):
            return None
    keys = ("kernel_size", "stride", "padding", "ceil_mode") + (("divisor_override",) if nsp > 1 else ())
    _twin(module(f"torch.nn.AvgPool{nsp}d")(avg_ctor), _AVG[nsp],
          lambda cx, m, x: _AVG[nsp](cx, x, **{k: m.cfg[k] for k in keys}))

    def aavg_ctor(cx, output_size):
        return None
    _twin(module(f"torch.nn.AdaptiveAvgPool{nsp}d")(aavg_ctor), _AAVG[nsp],
          lambda cx, m, x: _AAVG[nsp](cx, x, m.cfg["output_size"]))

    def amax_ctor(cx, output_size, return_indices=False):
        return None
    _twin(module(f"torch.nn.AdaptiveMaxPool{nsp}d")(amax_ctor), _AMAX[nsp],
          lambda cx, m, x: _AMAX[nsp](cx, x, m.cfg["output_size"], m.cfg["return_indices"]))

    def unpool_ctor(cx, kernel_size, stride=None, padding=0):
        return None
    _twin(module(f"torch.nn.MaxUnpool{nsp}d")(unpool_ctor), _UNPOOL[nsp],
          lambda cx, m, x, indices, output_size=None: _UNPOOL[nsp](
              cx, x, indices, m.cfg["kernel_size"], m.cfg["stride"], m.cfg["padding"], output_size))

    def lp_ctor(cx, norm_type, kernel_size, stride=None, ceil_mode=False):
        return None
    _twin(module(f"torch.nn.LPPool{nsp}d")(lp_ctor), _LP[nsp],
          lambda cx, m, x: _LP[nsp](cx, x, m.cfg["norm_type"], m.cfg["kernel_size"], m.cfg["stride"],
                                    m.cfg["ceil_mode"]))


for _n in (1, 2, 3):
    _layers(_n)


# ---- fractional max pooling ------------------------------------------------------------------------

def _ratios(cx: OpContext, v, nsp: int) -> list | None:
    items = v.items if isinstance(v, (TupleV, ListV)) else (list(v) if isinstance(v, (tuple, list)) else [v])
    if items is None:
        return None
    out = [cx.float_of(i) for i in items]
    if any(o is None for o in out):
        return None
    return out * nsp if len(out) == 1 else out


def _fractional_fn(nsp: int):
    def rule(cx: OpContext, input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
             _random_samples=None):
        if not isinstance(input, TensorV):
            raise NotApplicable("input unknown")
        name = f"fractional_max_pool{nsp}d"
        if cx.is_none(output_size) and cx.is_none(output_ratio):
            cx.fail(f"{cx.opname}: {name} requires specifying either an output_size or an output_ratio", "SH107")
        batch, c, sp = split_batch(cx, input, nsp + 1)
        ks = int_args(cx, kernel_size, nsp, "kernel_size")
        positive(cx, ks, "kernel_size")
        if not cx.is_none(output_size):
            outs = int_args(cx, output_size, nsp, "output_size")
        else:
            if nsp == 2 and not isinstance(output_ratio, (TupleV, ListV, tuple, list)):
                # F.fractional_max_pool2d takes len() of the ratio: only the layer accepts a single float
                cx.fail(f"{cx.opname}: {name} needs output_ratio as a tuple of {nsp} floats", "SH107")
            ratios = _ratios(cx, output_ratio, nsp)
            if ratios is None or len(ratios) != nsp:
                raise NotApplicable("output_ratio unknown")
            if any(h.value is None for h in sp):
                raise NotApplicable("a float ratio of a symbolic size")
            outs = [Expr.const(int(h.value * r)) for h, r in zip(sp, ratios)]
        for i, (h, k, o) in enumerate(zip(sp, ks, outs)):
            cx.require(ge(h, 1), lambda: f"{cx.opname}: {cx.label(input)} has an empty spatial dimension {i}", "SH107")
            # ATen's 3-D kernel checks output + kernel - 1 < input (strict); the 2-D one allows equality
            fits = lt(o + k - 1, h) if nsp == 3 else le(o + k - 1, h)
            cx.require(fits, lambda: f"{cx.opname}: kernel size {k} is too large relative to input size {h} and output size "
                       f"{o} at spatial dimension {i} (output + kernel - 1 must be {'<' if nsp == 3 else '<='} input)",
                       "SH107")
        return _maybe_indices(cx, cx.tensor(batch + (c,) + tuple(outs), like=input), return_indices)
    rule.__name__ = f"fractional_max_pool{nsp}d"
    return rule


def _fractional_layer(nsp: int, fn) -> None:
    def ctor(cx, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        has_size, has_ratio = not cx.is_none(output_size), not cx.is_none(output_ratio)
        if not has_size and not has_ratio:
            cx.fail(f"{cx.opname}: FractionalMaxPool{nsp}d requires specifying either an output size, or a pooling "
                    "ratio", "SH107")
        if has_size and has_ratio:
            cx.fail(f"{cx.opname}: only one of output_size and output_ratio may be specified", "SH107")
        if has_ratio:
            rs = _ratios(cx, output_ratio, nsp)
            if rs is not None and not all(0 < r < 1 for r in rs):
                cx.fail(f"{cx.opname}: output_ratio must be between 0 and 1 (got {rs})", "SH107")
            if rs is not None:
                return {"output_ratio": tuple(rs)}
        return None
    _twin(module(f"torch.nn.FractionalMaxPool{nsp}d")(ctor), fn,
          lambda cx, m, x: fn(cx, x, m.cfg["kernel_size"], m.cfg["output_size"], m.cfg["output_ratio"],
                              m.cfg["return_indices"]))


for _n in (2, 3):
    _fn = _fractional_fn(_n)
    op(f"torch.nn.functional.fractional_max_pool{_n}d")(_fn)
    _fractional_layer(_n, _fn)
