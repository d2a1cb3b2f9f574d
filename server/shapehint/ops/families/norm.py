"""Normalisation: batch/instance/layer/group/RMS norm, F.normalize, local response norm.

All keep the input shape; the rules are about which inputs are accepted. Batch statistics need
more than one value per channel: F.batch_norm(training=True) checks it, and so do layers that
always use batch statistics (track_running_stats=False). A layer that tracks running stats may
be in eval mode, where PyTorch accepts a single value, so no error is claimed for it.
"""
from __future__ import annotations

from ...shapes.expr import product
from ...shapes.shape import Shape, divides, eq, ge, gt, is_dyn
from ...shapes.values import IntV, ListV, TensorV, TupleV, UnknownV
from ..arguments import need_int, size_or_fresh
from ..common import same_shape
from ..context import NotApplicable, OpContext
from ..edges import axiswise
from ..registry import module, op


def _per_channel(cx: OpContext, x, count, what: str) -> None:
    cx.require(gt(count, 1), lambda: f"{cx.opname}: expected more than 1 {what} when training, but {cx.label(x)} "
               f"{x.shape} has {count}", "SH107")


def _channels(cx: OpContext, x, c, n, what: str = "num_features") -> None:
    cx.require(eq(c, n), lambda: f"{cx.opname} expects {n} channels at dimension 1, but {cx.label(x)} has {c} here",
               "SH101")


def _vec(cx: OpContext, v, n, what: str) -> None:
    """An optional per-channel tensor (running_mean, weight, ...) must have n elements."""
    if isinstance(v, TensorV) and v.shape.rank is not None:
        d = v.shape.dims
        if len(d) != 1:
            cx.fail(f"{cx.opname}: {what} must be 1-D with {n} elements, got {v.shape}", "SH102")
        cx.require(eq(d[0], n), lambda: f"{cx.opname}: {what} has {d[0]} elements, but the input has {n} channels",
                   "SH101")


# ---- batch norm ----------------------------------------------------------------------------------

@op("torch.nn.functional.batch_norm", "torch.batch_norm")
def batch_norm(cx: OpContext, input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    if not isinstance(input, TensorV):
        raise NotApplicable("input unknown")
    cx.at_least(input, 2)
    c = cx.dim(input, 1)
    for v, what in ((running_mean, "running_mean"), (running_var, "running_var"), (weight, "weight"),
                    (bias, "bias")):
        _vec(cx, v, c, what)
    if cx.bool_of(training) and input.shape.rank is not None:
        d = input.shape.dims
        _per_channel(cx, input, d[0] * product(d[2:]), "value per channel")
    return same_shape(cx, input)


def _bn_layer(nsp: int, ranks: tuple) -> None:
    def ctor(cx: OpContext, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
             device=None, dtype=None, *, bias=True):
        return None
    rule = module(f"torch.nn.BatchNorm{nsp}d")(ctor)

    @rule.forward(twin=batch_norm)
    def fwd(cx: OpContext, m, input):
        if not isinstance(input, TensorV):
            raise NotApplicable("input unknown")
        d = cx.leading(input, ranks, 2)
        n = size_or_fresh(cx, m.cfg["num_features"])
        tracked = cx.bool_of(m.cfg["track_running_stats"])
        if tracked or cx.bool_of(m.cfg["affine"]):
            _channels(cx, input, d[1], n)
        if tracked is False and input.shape.rank is not None:  # batch statistics in train and eval mode alike
            _per_channel(cx, input, d[0] * product(d[2:]), "value per channel")
        return same_shape(cx, input)

    @rule.params
    def params(cx: OpContext, m):
        n = cx.int_of(m.cfg["num_features"])
        return {"weight": [n], "bias": [n]} if cx.bool_of(m.cfg["affine"]) is not False else {}


_bn_layer(1, (2, 3))  # unknown rank: features after a Linear are the common case
_bn_layer(2, (4,))
_bn_layer(3, (5,))


# ---- instance norm --------------------------------------------------------------------------------

@op("torch.nn.functional.instance_norm", "torch.instance_norm")
def instance_norm(cx: OpContext, input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    if not isinstance(input, TensorV):
        raise NotApplicable("input unknown")
    cx.at_least(input, 2)
    c = cx.dim(input, 1)
    for v, what in ((running_mean, "running_mean"), (running_var, "running_var"), (weight, "weight"),
                    (bias, "bias")):
        _vec(cx, v, c, what)
    if cx.bool_of(use_input_stats) is not False and input.shape.rank is not None:
        _per_channel(cx, input, product(input.shape.dims[2:]), "spatial element")
    return same_shape(cx, input)


def _in_layer(nsp: int) -> None:
    def ctor(cx: OpContext, num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False,
             device=None, dtype=None, *, bias=True):
        return None
    rule = module(f"torch.nn.InstanceNorm{nsp}d")(ctor)

    @rule.forward(twin=instance_norm)
    def fwd(cx: OpContext, m, input):
        if not isinstance(input, TensorV):
            raise NotApplicable("input unknown")
        d = cx.dims(input, (nsp + 2, nsp + 1))
        n = need_int(cx, m.cfg["num_features"], "num_features")
        c = d[len(d) - nsp - 1]
        # with affine=False PyTorch only warns about a mismatch (num_features is unused then)
        if cx.bool_of(m.cfg["affine"]):
            _channels(cx, input, c, n)
        if cx.bool_of(m.cfg["track_running_stats"]) is False:
            _per_channel(cx, input, product(d[len(d) - nsp:]), "spatial element")
        return same_shape(cx, input)


for _n in (1, 2, 3):
    _in_layer(_n)


# ---- layer norm / RMS norm ----------------------------------------------------------------------

def _norm_shape(cx: OpContext, v) -> list:
    if isinstance(v, (TupleV, ListV, tuple, list)):
        items = getattr(v, "items", v)
        if items is None:
            raise NotApplicable("normalized_shape unknown")
        out = [cx.int_of(i) for i in items]
    else:
        out = [cx.int_of(v)]
    if any(o is None for o in out):
        raise NotApplicable("normalized_shape unknown")
    return out


def _trailing(cx: OpContext, x, ns: list, weight=None, bias=None) -> TensorV:
    if not isinstance(x, TensorV):
        raise NotApplicable("input unknown")
    k = len(ns)
    cx.at_least(x, k)
    tail = [cx.dim(x, i) for i in range(-k, 0)] if k else []
    shown = "[" + ", ".join(str(e) for e in ns) + "]"
    for a, b in zip(tail, ns):
        cx.require(eq(a, b), lambda: f"{cx.opname} normalizes over the trailing shape {shown}, but {cx.label(x)} "
                   f"{x.shape} ends with {a} where {b} is expected", "SH101")
    for v, what in ((weight, "weight"), (bias, "bias")):
        if isinstance(v, TensorV) and v.shape.rank is not None:
            if v.shape.rank != k:
                cx.fail(f"{cx.opname}: {what} must have shape {shown}, got {v.shape}", "SH101")
            for a, b in zip(v.shape.dims, ns):
                cx.require(eq(a, b), lambda: f"{cx.opname}: {what} must have shape {shown}, got {v.shape}", "SH101")
    return cx.tensor(_named_tail(x.shape, ns), like=x) if k else same_shape(cx, x)


def _named_tail(s: Shape, ns: list) -> Shape:
    """The input's shape, its trailing sizes that are unknown (`?`) written as the normalized
    shape's, which PyTorch requires them to equal (a pooled `[B, ?]` normalized over `hidden`
    is `[B, hidden]`)."""
    def pick(a, b):
        return b if is_dyn(a) and not is_dyn(b) else a
    if s.rank is not None:
        dims = list(s.dims)
        dims[len(dims) - len(ns):] = [pick(a, b) for a, b in zip(dims[len(dims) - len(ns):], ns)]
        return Shape(tuple(dims))
    if len(s.suffix) < len(ns):
        return s
    suf = list(s.suffix)
    suf[len(suf) - len(ns):] = [pick(a, b) for a, b in zip(suf[len(suf) - len(ns):], ns)]
    return Shape(s.dims, s.star, tuple(suf))


def _given(cx: OpContext, x, normalized_shape, weight=None, bias=None) -> TensorV:
    """The functional forms, whose `normalized_shape` PyTorch takes only as a sequence of ints: a
    value of unknown kind there (`self.normalized_shape` of a LayerNorm subclass built out of
    view) is a sequence of unknown length, so it says nothing of the trailing axes (taking it for
    one int would name the last axis after it and claim a rank-1 normalisation): the input's
    shape, unchecked. One the analysis knows for an int (`kind`: a parameter annotated `int`
    the subclass's `super().__init__(num_channels)` was given) is that int."""
    if isinstance(normalized_shape, (TupleV, ListV, tuple, list, IntV, int)) \
            or getattr(normalized_shape, "kind", None) == "int":
        return _trailing(cx, x, _norm_shape(cx, normalized_shape), weight, bias)
    if not isinstance(x, TensorV):
        raise NotApplicable("input unknown")
    return same_shape(cx, x)


@op("torch.nn.functional.layer_norm", "torch.layer_norm")
def layer_norm(cx: OpContext, input, normalized_shape, weight=None, bias=None, eps=1e-05):
    return _given(cx, input, normalized_shape, weight, bias)


@op("torch.nn.functional.rms_norm", "torch.rms_norm")
def rms_norm(cx: OpContext, input, normalized_shape, weight=None, eps=None):
    return _given(cx, input, normalized_shape, weight)


@module("torch.nn.LayerNorm")
def LayerNorm(cx: OpContext, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None,
              dtype=None):
    return None


def _layer(cx: OpContext, m, input) -> TensorV:
    """A LayerNorm or RMSNorm layer. One whose width the analysis lost (`LayerNorm(4 * dim)`,
    `dim` doubled by each pass of a loop of unknown count) keeps its input's shape, unchecked:
    an int or a sequence, PyTorch's output has the input's shape; it was unknown, with all that
    followed it. Any other width is read as before (an opaque one names the trailing axis)."""
    ns = m.cfg["normalized_shape"]
    if isinstance(ns, UnknownV):
        if not isinstance(input, TensorV):
            raise NotApplicable("input unknown")
        return same_shape(cx, input)
    return _trailing(cx, input, _norm_shape(cx, ns))


@LayerNorm.forward(twin=layer_norm)
def _ln_fwd(cx: OpContext, m, input):
    return _layer(cx, m, input)


@LayerNorm.params
def _ln_params(cx: OpContext, m):
    ns = _norm_shape(cx, m.cfg["normalized_shape"])
    if cx.bool_of(m.cfg["elementwise_affine"]) is False:
        return {}
    return {"weight": ns, "bias": ns} if cx.bool_of(m.cfg["bias"]) is not False else {"weight": ns}


@module("torch.nn.RMSNorm")
def RMSNorm(cx: OpContext, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
    return None


@RMSNorm.forward(twin=rms_norm)
def _rms_fwd(cx: OpContext, m, input):
    return _layer(cx, m, input)


@RMSNorm.params
def _rms_params(cx: OpContext, m):
    ns = _norm_shape(cx, m.cfg["normalized_shape"])
    return {"weight": ns} if cx.bool_of(m.cfg["elementwise_affine"]) is not False else {}


# ---- group norm ------------------------------------------------------------------------------------

def _group(cx: OpContext, x, g, weight=None, bias=None, num_channels=None) -> TensorV:
    if not isinstance(x, TensorV):
        raise NotApplicable("input unknown")
    cx.at_least(x, 2)
    c = cx.dim(x, 1)
    if num_channels is not None:
        _channels(cx, x, c, num_channels)
    if x.shape.rank is not None:
        d = x.shape.dims
        # F.group_norm checks batch statistics on the (N*C/G, G, *spatial) view
        _per_channel(cx, x, d[0] * (c // g) * product(d[2:]), "value per group")
    cx.require(divides(g, c), lambda: f"{cx.opname}: the {c} channels of {cx.label(x)} are not divisible by "
               f"num_groups={g}", "SH101")
    _vec(cx, weight, c, "weight")
    _vec(cx, bias, c, "bias")
    return same_shape(cx, x)


@op("torch.nn.functional.group_norm", "torch.group_norm")
def group_norm(cx: OpContext, input, num_groups, weight=None, bias=None, eps=1e-05):
    g = need_int(cx, num_groups, "num_groups")
    cx.require(ge(g, 1), lambda: f"{cx.opname}: num_groups must be positive, got {g}", "SH107")
    return _group(cx, input, g, weight, bias)


@module("torch.nn.GroupNorm")
def GroupNorm(cx: OpContext, num_groups, num_channels, eps=1e-05, affine=True, device=None, dtype=None):
    g, c = cx.int_of(num_groups), cx.int_of(num_channels)
    if g is not None and c is not None:
        cx.require(ge(g, 1), lambda: f"{cx.opname}: num_groups must be positive, got {g}", "SH107")
        cx.require(divides(g, c), lambda: f"{cx.opname}: num_channels={c} must be divisible by num_groups={g}", "SH107")


@GroupNorm.forward(twin=group_norm)
def _gn_fwd(cx: OpContext, m, input):
    g = need_int(cx, m.cfg["num_groups"], "num_groups")
    c = need_int(cx, m.cfg["num_channels"], "num_channels") if cx.bool_of(m.cfg["affine"]) is not False else None
    return _group(cx, input, g, num_channels=c)


@GroupNorm.params
def _gn_params(cx: OpContext, m):
    c = cx.int_of(m.cfg["num_channels"])
    return {"weight": [c], "bias": [c]} if cx.bool_of(m.cfg["affine"]) is not False else {}


# ---- F.normalize, local response norm ----------------------------------------------------------

@op("torch.nn.functional.normalize")
def normalize(cx: OpContext, input, p=2.0, dim=1, eps=1e-12, out=None):
    if isinstance(input, TensorV) and input.shape.rank is None and cx.const_int(dim) is not None:
        return axiswise(cx, input, [cx.const_int(dim)], lambda t: normalize(cx, t, p, dim, eps))
    if not isinstance(input, TensorV) or input.shape.rank is None:
        raise NotApplicable("input unknown")
    cx.norm_dim(dim, input.shape.rank)
    return same_shape(cx, input)


@op("torch.renorm", "Tensor.renorm", "Tensor.renorm_")
def renorm(cx: OpContext, input, p, dim, maxnorm, *, out=None):
    """Each slice along `dim` rescaled to norm <= maxnorm: the shape is kept."""
    if not isinstance(input, TensorV) or input.shape.rank is None:
        raise NotApplicable("input unknown")
    r = input.shape.rank
    if r < 2:
        cx.fail(f"{cx.opname}: renorm needs an input with at least 2 dimensions, but {cx.label(input)} is {r}D "
                f"{input.shape}", "SH102")
    cx.norm_dim(dim, r)
    pv, mv = cx.float_of(p), cx.float_of(maxnorm)
    if pv is not None and pv <= 0:
        cx.fail(f"{cx.opname}: renorm does not support a non-positive norm (p={pv:g})", "SH107")
    if mv is not None and mv < 0:
        cx.fail(f"{cx.opname}: renorm expects maxnorm to be >= 0 but got {mv:g}", "SH107")
    return same_shape(cx, input)


@op("torch.nn.functional.local_response_norm")
def local_response_norm(cx: OpContext, input, size, alpha=0.0001, beta=0.75, k=1.0):
    if not isinstance(input, TensorV):
        raise NotApplicable("input unknown")
    cx.at_least(input, 3)
    return same_shape(cx, input)


@module("torch.nn.LocalResponseNorm")
def LocalResponseNorm(cx: OpContext, size, alpha=0.0001, beta=0.75, k=1.0):
    return None


@LocalResponseNorm.forward(twin=local_response_norm)
def _lrn_fwd(cx: OpContext, m, input):
    return local_response_norm(cx, input, m.cfg["size"])


