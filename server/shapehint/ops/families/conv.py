"""Convolutions: F.conv1d/2d/3d, F.conv_transpose1d/2d/3d and the nn.Conv*/ConvTranspose* layers.

Spatial sizes are written with Expr arithmetic so one rule serves concrete and symbolic dims:
conv out = (H + 2*p - d*(k-1) - 1)//s + 1, transposed out = (H-1)*s - 2*p + d*(k-1) + op + 1.
Inputs may be batched (N, C, *sp) or unbatched (C, *sp); `split_batch` handles both, preferring
batched when the rank is still unknown. Argument readers (ops/arguments.py) and window
geometry (ops/windows.py) are shared with the other windowed families.
"""
from __future__ import annotations

from ...shapes.expr import Expr
from ...shapes.shape import conj, disj, divides, eq, ge, le, lt
from ...shapes.values import ListV, StrV, TensorV, TupleV, UnknownV
from ..arguments import int_args, need_int, positive, size_or_fresh
from ..context import NotApplicable, OpContext
from ..registry import module, op
from ..windows import require_window, split_batch, window_out


def _pad_arg(cx: OpContext, padding, n: int):
    """An int list, or the string 'same' / 'valid'."""
    s = cx.str_of(padding)
    if s is not None:
        if s not in ("same", "valid"):
            cx.fail(f"{cx.opname}: invalid padding string {s!r} (expected 'same' or 'valid')", "SH107")
        return s
    if isinstance(padding, StrV):
        raise NotApplicable("padding unknown")
    if isinstance(padding, UnknownV):
        return LOST
    return int_args(cx, padding, n, "padding")


# A padding the analysis lost (`padding=pad` where pad is 'same' on one path and 0 on another):
# the spatial sizes are not known, the batch and channels still are.
LOST = "lost"


# ---- forward convolution ---------------------------------------------------------------

def conv_core(cx: OpContext, nsp: int, x, cin, cout, ks, stride, padding, dilation, groups,
              mode: str = "zeros", layer: bool = False) -> TensorV:
    if not isinstance(x, TensorV):
        raise NotApplicable("input unknown")
    batch, c, sp = split_batch(cx, x, nsp + 1)
    positive(cx, stride, "stride")
    positive(cx, dilation, "dilation")
    where = "" if layer else " (weight.shape[1] * groups)"
    cx.require(eq(c, cin), lambda: f"{cx.opname} expects {cin} input channels{where}, but {cx.label(x)} has {c} here",
               "SH101")
    out = []
    if padding == LOST:
        return cx.tensor(batch + (cout,) + tuple(cx.fresh("?") for _ in range(nsp)), like=x)
    if padding == "same":
        if not all(s.value == 1 for s in stride):
            cx.fail(f"{cx.opname}: padding='same' is not supported for strided convolutions", "SH107")
        pads = None
    else:
        pads = [Expr.const(0)] * nsp if padding == "valid" else padding
        positive(cx, pads, "padding", lo=0)
    for i in range(nsp):
        h, k, s, d = sp[i], ks[i], stride[i], dilation[i]
        if pads is None:  # 'same': total padding d*(k-1), the odd extra on the right
            total = d * (k - 1)
            left = total // 2
            _mode_pad_check(cx, x, mode, h, left, total - left, i)
            out.append(h)
            continue
        p = pads[i]
        _mode_pad_check(cx, x, mode, h, p, p, i)
        o = window_out(h, k, s, p, d)
        require_window(cx, x, i, h, k, p, d, o)
        out.append(o)
    return cx.tensor(batch + (cout,) + tuple(out), like=x)


def _mode_pad_check(cx, x, mode, h, left, right, i) -> None:
    """padding_mode other than zeros pads with F.pad first, with its size limits."""
    if mode == "reflect":
        cx.require(conj(lt(left, h), lt(right, h)), lambda: f"{cx.opname}: padding_mode='reflect' needs padding smaller "
                   f"than the input, but {cx.label(x)} has size {h} at spatial dimension {i}", "SH107")
    elif mode == "circular":
        cx.require(conj(le(left, h), le(right, h)), lambda: f"{cx.opname}: padding_mode='circular' needs padding at most "
                   f"the input size, but {cx.label(x)} has size {h} at spatial dimension {i}", "SH107")


def _groups(cx: OpContext, groups) -> Expr:
    g = need_int(cx, groups, "groups")
    cx.require(ge(g, 1), lambda: f"{cx.opname}: groups must be a positive integer, got {g}", "SH107")
    return g


def _check_bias(cx: OpContext, bias, n) -> None:
    if isinstance(bias, TensorV):
        b = cx.dims(bias, 1, "bias")
        cx.require(eq(b[0], n), lambda: f"{cx.opname} expects a bias of {n} elements, but it has {b[0]}", "SH101")


def _conv_fn(nsp: int):
    def rule(cx: OpContext, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        w = cx.dims(weight, nsp + 2, "weight")
        g = _groups(cx, groups)
        cx.require(divides(g, w[0]), lambda: f"{cx.opname}: weight.shape[0]={w[0]} must be divisible by groups={g}", "SH107")
        _check_bias(cx, bias, w[0])
        return conv_core(cx, nsp, input, w[1] * g, w[0], list(w[2:]), int_args(cx, stride, nsp, "stride"),
                         _pad_arg(cx, padding, nsp), int_args(cx, dilation, nsp, "dilation"), g)
    rule.__name__ = f"conv{nsp}d"
    return rule


_CONV = {_n: op(f"torch.nn.functional.conv{_n}d", f"torch.conv{_n}d")(_conv_fn(_n)) for _n in (1, 2, 3)}


# ---- transposed convolution ---------------------------------------------------------------

def convT_core(cx: OpContext, nsp: int, x, cin, cout, ks, stride, padding, out_pad, dilation,
               output_size=None, layer: bool = False) -> TensorV:
    if not isinstance(x, TensorV):
        raise NotApplicable("input unknown")
    batch, c, sp = split_batch(cx, x, nsp + 1)
    positive(cx, stride, "stride")
    positive(cx, dilation, "dilation")
    positive(cx, padding, "padding", lo=0)
    positive(cx, out_pad, "output_padding", lo=0)
    cx.require(eq(c, cin), lambda: f"{cx.opname} expects {cin} input channels, but {cx.label(x)} has {c} here", "SH101")
    out = []
    for i in range(nsp):
        h, k, s, p, d = sp[i], ks[i], stride[i], padding[i], dilation[i]
        base = (h - 1) * s - 2 * p + d * (k - 1) + 1
        if output_size is not None:
            o = output_size[i]
            cx.require(conj(ge(o, base), le(o, base + s - 1)),
                       lambda: f"{cx.opname}: requested output size {o} at spatial dimension {i} is not reachable: "
                       f"it must lie between {base} and {base + s - 1}", "SH107")
            # the requested size fixes output_padding, which PyTorch then checks against stride/dilation
            opd = o - base
        else:
            opd = out_pad[i]
            o = base + opd
        cx.require(disj(lt(opd, s), lt(opd, d)), lambda: f"{cx.opname}: output_padding ({opd}) must be smaller than "
                   f"either stride ({s}) or dilation ({d})", "SH107")
        cx.require(ge(o, 1), lambda: f"{cx.opname}: the output is too small at spatial dimension {i}: {cx.label(x)} has "
                   f"size {h}, which gives {o}", "SH107")
        out.append(o)
    return cx.tensor(batch + (cout,) + tuple(out), like=x)


def _convT_fn(nsp: int):
    def rule(cx: OpContext, input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
        w = cx.dims(weight, nsp + 2, "weight")
        g = _groups(cx, groups)
        if cx.str_of(padding) is not None:
            cx.fail(f"{cx.opname}: padding must be an int or a tuple of ints, not a string", "SH107")
        _check_bias(cx, bias, w[1] * g)
        return convT_core(cx, nsp, input, w[0], w[1] * g, list(w[2:]), int_args(cx, stride, nsp, "stride"),
                          int_args(cx, padding, nsp, "padding"), int_args(cx, output_padding, nsp, "output_padding"),
                          int_args(cx, dilation, nsp, "dilation"))
    rule.__name__ = f"conv_transpose{nsp}d"
    return rule


_CONV_T = {_n: op(f"torch.nn.functional.conv_transpose{_n}d", f"torch.conv_transpose{_n}d")(_convT_fn(_n))
           for _n in (1, 2, 3)}


# ---- layers ---------------------------------------------------------------------------------

MODES = ("zeros", "reflect", "replicate", "circular")


def _ctor_checks(cx: OpContext, nsp, in_channels, out_channels, kernel_size, stride, padding, groups,
                 padding_mode, transposed: bool) -> None:
    g = cx.int_of(groups)
    if g is not None and g.value is not None and g.value <= 0:
        cx.fail(f"{cx.opname}: groups must be a positive integer, got {g}", "SH107")
    for what, v in (("in_channels", in_channels), ("out_channels", out_channels)):
        e = cx.int_of(v)
        if e is not None and g is not None:
            cx.require(divides(g, e), lambda: f"{cx.opname}: {what}={e} must be divisible by groups={g}", "SH107")
    mode = cx.str_of(padding_mode)
    if mode is not None and mode not in MODES:
        cx.fail(f"{cx.opname}: padding_mode must be one of {', '.join(MODES)}, got {mode!r}", "SH107")
    if transposed and mode not in (None, "zeros"):
        cx.fail(f"{cx.opname}: only padding_mode='zeros' is supported for transposed convolutions", "SH107")
    pad = cx.str_of(padding)
    if pad is not None:
        if transposed or pad not in ("same", "valid"):
            cx.fail(f"{cx.opname}: invalid padding {pad!r}", "SH107")
        try:
            strides = int_args(cx, stride, nsp, "stride")
        except NotApplicable:
            return
        if pad == "same" and any(s.value != 1 for s in strides):
            cx.fail(f"{cx.opname}: padding='same' is not supported for strided convolutions", "SH107")


def _cfg(cx: OpContext, m, nsp: int, channels=need_int):
    """The layer's configuration; `channels` reads its channel counts and groups (size_or_fresh in
    the forward: a width the analysis does not know, a depthwise conv's `groups=dim` too, still
    leaves the output's other axes known, while the parameters' shapes need them)."""
    c = m.cfg
    return (channels(cx, c["in_channels"], "in_channels"), channels(cx, c["out_channels"], "out_channels"),
            int_args(cx, c["kernel_size"], nsp, "kernel_size"), int_args(cx, c["stride"], nsp, "stride"),
            int_args(cx, c["dilation"], nsp, "dilation"), channels(cx, c["groups"], "groups"))


def _conv_layer(nsp: int):
    def ctor(cx: OpContext, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
             bias=True, padding_mode="zeros", device=None, dtype=None):
        _ctor_checks(cx, nsp, in_channels, out_channels, kernel_size, stride, padding, groups, padding_mode, False)
    rule = module(f"torch.nn.Conv{nsp}d")(ctor)

    @rule.forward(twin=_CONV[nsp])
    def fwd(cx: OpContext, m, input):
        cin, cout, ks, st, dil, g = _cfg(cx, m, nsp, size_or_fresh)
        mode = cx.str_of(m.cfg["padding_mode"]) or "zeros"
        return conv_core(cx, nsp, input, cin, cout, ks, st, _pad_arg(cx, m.cfg["padding"], nsp), dil, g, mode,
                         layer=True)

    @rule.params
    def params(cx: OpContext, m):
        cin, cout, ks, _, _, g = _cfg(cx, m, nsp)
        out = {"weight": [cout, cin // g] + ks}
        if cx.bool_of(m.cfg["bias"]) is not False:
            out["bias"] = [cout]
        return out


def _convT_layer(nsp: int):
    def ctor(cx: OpContext, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
             groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        _ctor_checks(cx, nsp, in_channels, out_channels, kernel_size, stride, padding, groups, padding_mode, True)
    rule = module(f"torch.nn.ConvTranspose{nsp}d")(ctor)

    @rule.forward(twin=_CONV_T[nsp])
    def fwd(cx: OpContext, m, input, output_size=None):
        cin, cout, ks, st, dil, g = _cfg(cx, m, nsp, size_or_fresh)
        size = None if cx.is_none(output_size) else _output_size(cx, output_size, nsp, input)
        return convT_core(cx, nsp, input, cin, cout, ks, st, int_args(cx, m.cfg["padding"], nsp, "padding"),
                          int_args(cx, m.cfg["output_padding"], nsp, "output_padding"), dil, size, layer=True)

    @rule.params
    def params(cx: OpContext, m):
        cin, cout, ks, _, _, g = _cfg(cx, m, nsp)
        out = {"weight": [cin, cout // g] + ks}
        if cx.bool_of(m.cfg["bias"]) is not False:
            out["bias"] = [cout]
        return out


def _output_size(cx: OpContext, v, nsp: int, x) -> list:
    if not isinstance(v, (TupleV, ListV, tuple, list)) or getattr(v, "items", ()) is None:
        raise NotApplicable("output_size unknown")
    items = list(v.items if isinstance(v, (TupleV, ListV)) else v)
    if not isinstance(x, TensorV) or x.shape.rank is None:
        raise NotApplicable("input rank unknown")
    lead = 2 if x.shape.rank == nsp + 2 else 1
    if len(items) == nsp + lead:  # a full size: PyTorch keeps the spatial part
        items = items[lead:]
    if len(items) != nsp:
        cx.fail(f"{cx.opname}: output_size must have {nsp} or {nsp + lead} elements, got {len(items)}", "SH107")
    out = [cx.int_of(i) for i in items]
    if any(o is None for o in out):
        raise NotApplicable("output_size unknown")
    return out


for _n in (1, 2, 3):
    _conv_layer(_n)
    _convT_layer(_n)

__all__ = ["int_args", "opt_int", "need_int", "split_batch", "positive", "window_out", "require_window",
           "conv_core", "convT_core"]
