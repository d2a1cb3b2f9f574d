"""Resizing: F.pad and the padding layers, F.interpolate / nn.Upsample*, pixel (un)shuffle,
F.unfold / F.fold and their layers, nn.Flatten and nn.Unflatten, F.grid_sample and F.affine_grid.

F.pad takes (left, right) pairs starting from the last dimension; pads may be negative (crop).
Non-constant modes pad only the last 1-3 dims of a (un)batched input, so a pad of 2k values
needs rank k+1 or k+2. interpolate computes floor(H * scale) like PyTorch (a float product for
concrete H, an exact rational for symbolic H).
"""
from __future__ import annotations

import math
from fractions import Fraction

from ...shapes.expr import Expr, emin, product
from ...shapes.shape import conj, divides, eq, ge, gt, le, lt
from ...shapes.values import FloatV, IntV, ListV, TensorV, TupleV
from ..arguments import int_args, need_int, positive
from ..common import shape_str
from ..context import NotApplicable, OpContext
from ..edges import axiswise
from ..registry import module, op
from ..windows import split_batch, window_out


def _number(v):
    """A float or int argument's value, None when unknown."""
    if isinstance(v, FloatV):
        return v.value
    if isinstance(v, IntV):
        return v.expr.value
    return None


def _items(cx: OpContext, v, what: str) -> list:
    if isinstance(v, (TupleV, ListV)):
        if v.items is None:
            raise NotApplicable(f"{what} unknown")
        v = v.items
    if not isinstance(v, (tuple, list)):
        raise NotApplicable(f"{what} is not a sequence")
    out = [i if isinstance(i, Expr) else cx.int_of(i) for i in v]
    if any(o is None for o in out):
        raise NotApplicable(f"{what} unknown")
    return out


def _known(x) -> None:
    if not isinstance(x, TensorV) or x.shape.rank is None:
        raise NotApplicable("input unknown")


# ---- F.pad ----------------------------------------------------------------------------------------------

PAD_MODES = ("constant", "reflect", "replicate", "circular")


@op("torch.nn.functional.pad")
def pad(cx: OpContext, input, pad, mode="constant", value=None):
    try:
        p = _items(cx, pad, "pad")
    except NotApplicable:
        return _pad_by_unknowns(cx, input, pad, mode)
    if isinstance(input, TensorV) and input.shape.rank is None and p and not len(p) % 2:
        # the last len(p)//2 axes of `[*x, ...]` (a mode that wants the whole rank gives nothing)
        return axiswise(cx, input, list(range(-len(p) // 2, 0)), lambda t: _pad(cx, t, pad, mode, value))
    _known(input)
    md = cx.str_of(mode)
    if md is None:
        raise NotApplicable("mode unknown")
    if md not in PAD_MODES:
        cx.fail(f"{cx.opname}: unrecognised padding mode {md!r} (expected one of {', '.join(PAD_MODES)})", "SH107")
    d = list(input.shape.dims)
    if len(p) % 2:
        cx.fail(f"{cx.opname}: the padding length must be even (pairs of left, right), got {len(p)} values", "SH107")
    k = len(p) // 2
    if k > len(d):
        cx.fail(f"{cx.opname}: {len(p)} padding values pad {k} dimensions, but {cx.label(input)} has only "
                f"{len(d)}", "SH102")
    if md != "constant":
        if not cx.is_none(value) and _number(value) not in (0, None):  # PyTorch accepts value=0
            cx.fail(f"{cx.opname}: padding mode {md!r} does not take a value argument", "SH107")
        if k not in (1, 2, 3) or len(d) not in (k + 1, k + 2):
            cx.fail(f"{cx.opname}: {md} padding of {len(p)} values needs a {k + 1}D or {k + 2}D input, but "
                    f"{cx.label(input)} is {len(d)}D {input.shape}", "SH102")
    for j in range(k):
        i = len(d) - 1 - j
        left, right, h = p[2 * j], p[2 * j + 1], d[i]
        out = h + left + right
        if md == "reflect":
            cx.require(conj(lt(left, h), lt(right, h)), lambda: f"{cx.opname}: reflect padding ({left}, {right}) must be "
                       f"smaller than the size {h} of dimension {i} of {cx.label(input)}", "SH107")
        elif md == "circular":
            cx.require(conj(le(left, h), le(right, h)), lambda: f"{cx.opname}: circular padding ({left}, {right}) must not "
                       f"exceed the size {h} of dimension {i} of {cx.label(input)}", "SH107")
        if md == "constant":  # negative pads crop first (narrow), before positive pads grow
            cx.require(ge(h + emin(left, 0) + emin(right, 0), 0), lambda: f"{cx.opname}: negative padding ({left}, {right}) "
                       f"crops more than the size {h} of dimension {i} of {cx.label(input)}", "SH107")
        lo = 1 if md in ("reflect", "replicate") else 0
        cx.require(ge(out, lo), lambda: f"{cx.opname}: padding ({left}, {right}) leaves {out} elements of the size-{h} "
                   f"dimension {i} of {cx.label(input)}", "SH107")
        d[i] = out
    return cx.tensor(d, like=input)


_pad = pad  # (inside the rule, `pad` is its argument)


def _pad_by_unknowns(cx: OpContext, input, pad, mode):
    """A constant pad whose count of values is known but some values are not (a same-padding
    convolution's `F.pad(x, (pw // 2, pw - pw // 2, ...))`, `pw` computed with `math.ceil` from
    the input's size): the axes it leaves alone keep their size, the others get sizes of their own."""
    items = pad.items if isinstance(pad, (TupleV, ListV)) else None
    if items is None or len(items) % 2 or cx.str_of(mode) != "constant":
        raise NotApplicable("pad unknown")
    if isinstance(input, TensorV) and input.shape.rank is None and items:
        return axiswise(cx, input, list(range(-len(items) // 2, 0)), lambda t: _pad_by_unknowns(cx, t, pad, mode))
    _known(input)
    if len(items) // 2 > input.shape.rank:
        raise NotApplicable("pad unknown")
    d = list(input.shape.dims)
    for j in range(len(items) // 2):
        left, right = (cx.int_of(v) for v in items[2 * j:2 * j + 2])
        i = len(d) - 1 - j
        d[i] = d[i] + left + right if left is not None and right is not None else cx.fresh("?")
    return cx.tensor(d, like=input)


def _pad_layer(kind: str, nsp: int, mode: str) -> None:
    if kind == "ConstantPad":
        def ctor(cx: OpContext, padding, value):
            return None
    else:
        def ctor(cx: OpContext, padding):
            return None
    rule = module(f"torch.nn.{kind}{nsp}d")(ctor)

    @rule.forward(twin=pad)
    def fwd(cx: OpContext, m, input):
        v = m.cfg["padding"]
        p = [cx.int_of(v)] * (2 * nsp) if cx.int_of(v) is not None else _items(cx, v, "padding")
        if len(p) != 2 * nsp:
            cx.fail(f"{cx.opname}: padding must be an int or {2 * nsp} values, got {len(p)}", "SH107")
        if kind == "CircularPad":  # the layer checks the rank itself
            cx.dims(input, (nsp + 2, nsp + 1))
        return pad(cx, input, list(p), mode)


for _n in (1, 2, 3):
    for _kind, _mode in (("ZeroPad", "constant"), ("ConstantPad", "constant"), ("ReflectionPad", "reflect"),
                         ("ReplicationPad", "replicate"), ("CircularPad", "circular")):
        _pad_layer(_kind, _n, _mode)


# ---- interpolate --------------------------------------------------------------------------------------------

INTERP_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
MODE_RANK = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def _scale(cx: OpContext, h: Expr, s: float) -> Expr:
    if h.value is not None:
        return Expr.const(math.floor(float(h.value) * s))  # PyTorch's float product
    f = Fraction(str(s))
    return (h * f.numerator) // f.denominator


def _floats(cx: OpContext, v, n: int):
    if isinstance(v, (TupleV, ListV, tuple, list)):
        items = list(getattr(v, "items", v) or [])
        out = [cx.float_of(i) for i in items]
    else:
        out = [cx.float_of(v)] * n
    if any(o is None for o in out):
        raise NotApplicable("scale_factor unknown")
    return out


@op("torch.nn.functional.interpolate", "torch.nn.functional.upsample")
def interpolate(cx: OpContext, input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    _known(input)
    md = cx.str_of(mode)
    if md is None:
        raise NotApplicable("mode unknown")
    d = input.shape.dims
    if not cx.is_none(align_corners) and md not in ("linear", "bilinear", "bicubic", "trilinear"):
        cx.fail(f"{cx.opname}: align_corners can only be set with the interpolating modes linear, bilinear, "
                f"bicubic and trilinear (mode={md!r})", "SH107")
    if len(d) not in (3, 4, 5):
        cx.fail(f"{cx.opname} expects a 3D, 4D or 5D input (N, C, *spatial), but {cx.label(input)} is "
                f"{len(d)}D {input.shape}", "SH102")
    nsp = len(d) - 2
    if cx.bool_of(antialias) and (md not in ("bilinear", "bicubic") or len(d) != 4):
        cx.fail(f"{cx.opname}: antialias=True needs mode 'bilinear' or 'bicubic' and a 4D input", "SH107")
    has_size, has_scale = not cx.is_none(size), not cx.is_none(scale_factor)
    if has_size == has_scale:
        cx.fail(f"{cx.opname}: {'only one' if has_size else 'either'} of size or scale_factor should be given",
                "SH107")
    if has_size:
        out = _items(cx, size, "size") if isinstance(size, (TupleV, ListV, tuple, list)) \
            else [need_int(cx, size, "size")] * nsp
        if len(out) != nsp:
            cx.fail(f"{cx.opname}: size has {len(out)} values, but {cx.label(input)} has {nsp} spatial "
                    f"dimensions", "SH107")
    else:
        sc = _floats(cx, scale_factor, nsp)
        if len(sc) != nsp:
            cx.fail(f"{cx.opname}: scale_factor has {len(sc)} values, but {cx.label(input)} has {nsp} spatial "
                    f"dimensions", "SH107")
        out = [_scale(cx, h, s) for h, s in zip(d[2:], sc)]
    if md not in INTERP_MODES:
        cx.fail(f"{cx.opname}: unknown mode {md!r}", "SH107")
    if md in MODE_RANK and MODE_RANK[md] != len(d):
        cx.fail(f"{cx.opname}: mode {md!r} needs a {MODE_RANK[md]}D input, but {cx.label(input)} is {len(d)}D",
                "SH102")
    for o in out:  # 'area' is adaptive average pooling, which allows empty outputs
        cx.require(ge(o, 0) if md == "area" else gt(o, 0), lambda: f"{cx.opname}: the output size must be greater "
                   f"than 0, got {o} for {cx.label(input)} {input.shape}", "SH107")
    return cx.tensor(tuple(d[:2]) + tuple(out), like=input)


@module("torch.nn.Upsample")
def Upsample(cx: OpContext, size=None, scale_factor=None, mode="nearest", align_corners=None,
             recompute_scale_factor=None):
    return None


@Upsample.forward(twin=interpolate)
def _up_fwd(cx: OpContext, m, input):
    c = m.cfg
    return interpolate(cx, input, c["size"], c["scale_factor"], c["mode"], c["align_corners"])


def _fixed_upsample(name: str, mode: str, align) -> None:
    def ctor(cx: OpContext, size=None, scale_factor=None):
        return None
    rule = module(f"torch.nn.{name}")(ctor)

    @rule.forward(twin=interpolate)
    def fwd(cx: OpContext, m, input):
        return interpolate(cx, input, m.cfg["size"], m.cfg["scale_factor"], mode, align)


_fixed_upsample("UpsamplingNearest2d", "nearest", None)
_fixed_upsample("UpsamplingBilinear2d", "bilinear", True)


# ---- pixel shuffle ----------------------------------------------------------------------------------------

def _factor(cx: OpContext, v, what: str) -> Expr:
    r = need_int(cx, v, what)
    cx.require(gt(r, 0), lambda: f"{cx.opname}: {what} must be positive, got {r}", "SH107")
    return r


@op("torch.nn.functional.pixel_shuffle", "torch.pixel_shuffle")
def pixel_shuffle(cx: OpContext, input, upscale_factor):
    _known(input)
    r = _factor(cx, upscale_factor, "upscale_factor")
    cx.at_least(input, 3)
    *b, c, h, w = input.shape.dims
    cx.require(divides(r * r, c), lambda: f"{cx.opname}: the {c} channels of {cx.label(input)} must be divisible by "
               f"upscale_factor**2 = {r * r}", "SH101")
    return cx.tensor(tuple(b) + (c // (r * r), h * r, w * r), like=input)


@op("torch.nn.functional.pixel_unshuffle", "torch.pixel_unshuffle")
def pixel_unshuffle(cx: OpContext, input, downscale_factor):
    _known(input)
    r = _factor(cx, downscale_factor, "downscale_factor")
    cx.at_least(input, 3)
    *b, c, h, w = input.shape.dims
    for v, what in ((h, "height"), (w, "width")):
        cx.require(divides(r, v), lambda: f"{cx.opname}: the {what} {v} of {cx.label(input)} must be divisible by "
                   f"downscale_factor={r}", "SH101")
    return cx.tensor(tuple(b) + (c * r * r, h // r, w // r), like=input)


def _shuffle_layer(name: str, fn, key: str) -> None:
    rule = module(f"torch.nn.{name}")(_ctor_named(key))

    @rule.forward(twin=fn)
    def fwd(cx: OpContext, m, input):
        return fn(cx, input, m.cfg[key])


def _ctor_named(key: str):
    if key == "upscale_factor":
        def ctor(cx: OpContext, upscale_factor):
            return None
    else:
        def ctor(cx: OpContext, downscale_factor):
            return None
    return ctor


_shuffle_layer("PixelShuffle", pixel_shuffle, "upscale_factor")
_shuffle_layer("PixelUnshuffle", pixel_unshuffle, "downscale_factor")


# ---- unfold / fold ----------------------------------------------------------------------------------------

def _blocks(cx: OpContext, sizes, ks, dil, pad_, st, what: str) -> list:
    positive(cx, ks, "kernel_size")
    positive(cx, dil, "dilation")
    positive(cx, st, "stride")
    positive(cx, pad_, "padding", lo=0)
    out = []
    for i in range(2):
        o = window_out(sizes[i], ks[i], st[i], pad_[i], dil[i])
        cx.require(ge(o, 1), lambda: f"{cx.opname}: {what} size {sizes[i]} at spatial dimension {i} is too small for "
                   f"kernel {ks[i]} (dilation {dil[i]}, padding {pad_[i]}, stride {st[i]})", "SH107")
        out.append(o)
    return out


@op("torch.nn.functional.unfold")
def unfold(cx: OpContext, input, kernel_size, dilation=1, padding=0, stride=1):
    _known(input)
    ks = int_args(cx, kernel_size, 2, "kernel_size")
    batch, c, sp = split_batch(cx, input, 3)
    bl = _blocks(cx, sp, ks, int_args(cx, dilation, 2, "dilation"), int_args(cx, padding, 2, "padding"),
                 int_args(cx, stride, 2, "stride"), "input")
    return cx.tensor(batch + (c * ks[0] * ks[1], bl[0] * bl[1]), like=input)


@op("torch.nn.functional.fold")
def fold(cx: OpContext, input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    _known(input)
    ks = int_args(cx, kernel_size, 2, "kernel_size")
    osz = int_args(cx, output_size, 2, "output_size")
    d = cx.dims(input, (3, 2))
    batch, ck, L = tuple(d[:-2]), d[-2], d[-1]
    kk = ks[0] * ks[1]
    cx.require(divides(kk, ck), lambda: f"{cx.opname}: dimension {len(d) - 2} of {cx.label(input)} ({ck}) must be divisible "
               f"by the product of kernel_size ({kk})", "SH101")
    bl = _blocks(cx, osz, ks, int_args(cx, dilation, 2, "dilation"), int_args(cx, padding, 2, "padding"),
                 int_args(cx, stride, 2, "stride"), "output")
    cx.require(eq(L, bl[0] * bl[1]), lambda: f"{cx.opname}: output_size {osz[0]}x{osz[1]} gives {bl[0] * bl[1]} blocks, "
               f"but {cx.label(input)} has {L} in its last dimension", "SH101")
    return cx.tensor(batch + (ck // kk,) + tuple(osz), like=input)


@module("torch.nn.Unfold")
def Unfold(cx: OpContext, kernel_size, dilation=1, padding=0, stride=1):
    return None


@Unfold.forward(twin=unfold)
def _unfold_fwd(cx: OpContext, m, input):
    c = m.cfg
    return unfold(cx, input, c["kernel_size"], c["dilation"], c["padding"], c["stride"])


@module("torch.nn.Fold")
def Fold(cx: OpContext, output_size, kernel_size, dilation=1, padding=0, stride=1):
    return None


@Fold.forward(twin=fold)
def _fold_fwd(cx: OpContext, m, input):
    c = m.cfg
    return fold(cx, input, c["output_size"], c["kernel_size"], c["dilation"], c["padding"], c["stride"])


# ---- Flatten / Unflatten layers ----------------------------------------------------------------------------

@module("torch.nn.Flatten")
def Flatten(cx: OpContext, start_dim=1, end_dim=-1):
    return None


@Flatten.forward
def _flatten_fwd(cx: OpContext, m, input):
    _known(input)
    d = input.shape.dims
    if not d:  # a scalar flattens to [1]
        cx.norm_dim(m.cfg["start_dim"], 0, "start_dim")
        cx.norm_dim(m.cfg["end_dim"], 0, "end_dim")
        return cx.tensor((1,), like=input)
    s = cx.norm_dim(m.cfg["start_dim"], len(d), "start_dim")
    e = cx.norm_dim(m.cfg["end_dim"], len(d), "end_dim")
    if s > e:
        cx.fail(f"{cx.opname}: start_dim ({s}) cannot come after end_dim ({e}) for {cx.label(input)} "
                f"{input.shape}", "SH107")
    return cx.tensor(d[:s] + (product(d[s:e + 1]),) + d[e + 1:], like=input)


@module("torch.nn.Unflatten")
def Unflatten(cx: OpContext, dim, unflattened_size):
    return None


@Unflatten.forward
def _unflatten_fwd(cx: OpContext, m, input):
    _known(input)
    d = input.shape.dims
    i = cx.norm_dim(m.cfg["dim"], len(d))
    sizes = _items(cx, m.cfg["unflattened_size"], "unflattened_size")
    if not sizes:
        cx.fail(f"{cx.opname}: unflattened_size must not be empty", "SH107")
    holes = [j for j, s in enumerate(sizes) if s.value == -1]
    if len(holes) > 1:
        cx.fail(f"{cx.opname}: only one dimension can be inferred (-1)", "SH103")
    for s in sizes:
        if s.value is not None and s.value < -1:
            cx.fail(f"{cx.opname}: invalid size {s} in unflattened_size", "SH107")
    known = product(s for s in sizes if s.value != -1)
    shown = "[" + ", ".join(str(s) for s in sizes) + "]"
    if holes:
        cx.require(conj(gt(known, 0), divides(known, d[i])), lambda: f"{cx.opname}: sizes {shown} cannot unflatten "
                   f"dimension {i} of size {d[i]} of {cx.label(input)}", "SH103")
        sizes[holes[0]] = d[i] // known
    else:
        cx.require(eq(known, d[i]), lambda: f"{cx.opname}: sizes {shown} multiply to {known}, but dimension {i} of "
                   f"{cx.label(input)} has size {d[i]}", "SH103")
    return cx.tensor(d[:i] + tuple(sizes) + d[i + 1:], like=input)


# ---- spatial transformers: affine_grid / grid_sample -------------------------------------------------

@op("torch.nn.functional.affine_grid")
def affine_grid(cx: OpContext, theta, size, align_corners=None):
    """theta [N, 2, 3] and size (N, C, H, W) -> grid [N, H, W, 2]; theta [N, 3, 4] and a 5-D size -> [N, D, H, W, 3]."""
    if not isinstance(theta, TensorV) or theta.shape.rank is None:
        raise NotApplicable("theta unknown")
    sz = cx.ints_of(size)
    if sz is None:
        raise NotApplicable("size unknown")
    if len(sz) not in (4, 5):
        cx.fail(f"{cx.opname}: affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, but got "
                f"{len(sz)} sizes", "SH107")
    for d in sz:
        cx.require(ge(d, 1), lambda: f"{cx.opname}: expected a non-zero, positive output size, got {shape_str(sz)}", "SH107")
    k = len(sz) - 2  # spatial dims
    want = f"Nx{k}x{k + 1}"
    t = theta.shape
    if t.rank != 3:
        cx.fail(f"{cx.opname}: expected a batch of {k}D affine matrices of shape {want} for size {shape_str(sz)}, "
                f"but {cx.label(theta)} is {t.rank}D {t}", "SH102")
    for got, exp in zip(t.dims[1:], (k, k + 1)):
        cx.require(eq(got, exp), lambda: f"{cx.opname}: expected a batch of {k}D affine matrices of shape {want} for size "
                   f"{shape_str(sz)}, but {cx.label(theta)} is {t}", "SH101")
    cx.require(eq(t.dims[0], sz[0]), lambda: f"{cx.opname}: theta has a batch of {t.dims[0]} matrices but the size asks for "
               f"N = {sz[0]}", "SH101")
    return cx.tensor((sz[0],) + tuple(sz[2:]) + (Expr.const(k),), like=theta)


@op("torch.nn.functional.grid_sample", "torch.grid_sampler")
def grid_sample(cx: OpContext, input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    x, g = input, grid
    if not isinstance(x, TensorV) or not isinstance(g, TensorV) or x.shape.rank is None or g.shape.rank is None:
        raise NotApplicable("operand unknown")
    xs, gs = x.shape, g.shape
    if xs.rank not in (4, 5) or gs.rank != xs.rank:
        cx.fail(f"{cx.opname}: expected 4D or 5D input and grid with the same number of dimensions, but got "
                f"input {xs} and grid {gs}", "SH102")
    k = xs.rank - 2
    if cx.str_of(mode) == "bicubic" and k == 3:
        cx.fail(f"{cx.opname}: bicubic interpolation only supports 4D input, but {cx.label(x)} is 5D {xs}", "SH102")
    cx.require(eq(xs.dims[0], gs.dims[0]), lambda: f"{cx.opname}: expected grid and input to have the same batch size, but "
               f"got input {xs} and grid {gs}", "SH101")
    cx.require(eq(gs.dims[-1], k), lambda: f"{cx.opname}: expected grid to have size {k} in the last dimension, but got "
               f"grid {gs}", "SH101")
    for i, d in enumerate(xs.dims[2:]):
        cx.require(ge(d, 1), lambda: f"{cx.opname}: expected input to have non-empty spatial dimensions, but input {xs} "
                   f"has dimension {i + 2} empty", "SH107")
    return cx.tensor(xs.dims[:2] + gs.dims[1:-1], like=x)
