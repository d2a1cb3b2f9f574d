"""Losses: cross_entropy, nll_loss, regression losses, BCE, KL divergence, embedding/ranking/triplet losses,
CTC (shapes only), nn.*Loss.

reduction='mean'/'sum' gives a scalar []; 'none' the per-element shape. Regression losses
broadcast input and target as PyTorch does, and warn (SH201) when the shapes differ: PyTorch
itself warns there, since [B, 1] against [B] silently becomes [B, B].
Cross entropy takes class indices (integer target of the input's shape without the class dim)
or class probabilities (floating target of the input's shape); when the target's dtype is not
known, its rank decides.
"""
from __future__ import annotations

from ...shapes.expr import Expr
from ...shapes.shape import Shape, conj, eq, ne
from ...shapes.values import ListV, TensorV, TupleV
from ..common import broadcast_shapes, result_dtype
from ..context import NotApplicable, OpContext
from ..registry import module, op
from .distances import pairwise_distance

REDUCTIONS = ("none", "mean", "sum")


def _reduction(cx: OpContext, reduction, size_average=None, reduce=None, extra=()) -> str:
    sa, rd = (None if cx.is_none(v) else cx.bool_of(v) for v in (size_average, reduce))
    if not cx.is_none(size_average) or not cx.is_none(reduce):  # legacy arguments win
        if (sa is None and not cx.is_none(size_average)) or (rd is None and not cx.is_none(reduce)):
            raise NotApplicable("legacy reduction unknown")
        sa = True if sa is None else sa
        rd = True if rd is None else rd
        return "mean" if sa and rd else ("sum" if rd else "none")
    r = cx.str_of(reduction)
    if r is None:
        raise NotApplicable("reduction unknown")
    if r not in REDUCTIONS + tuple(extra):
        cx.fail(f"{cx.opname}: {r!r} is not a valid value for reduction (expected "
                f"{', '.join(repr(x) for x in REDUCTIONS + tuple(extra))})", "SH107")
    return r


def _out(cx: OpContext, red: str, shape, like) -> TensorV:
    if red != "none":
        return cx.tensor((), like=like)
    return cx.tensor(shape if isinstance(shape, Shape) else Shape.of(shape), like=like)


def _known(*ts) -> None:
    for t in ts:
        if not isinstance(t, TensorV) or t.shape.rank is None:
            raise NotApplicable("operand unknown")


def _learn_target(cx: OpContext, x, t, ranks_from_input) -> None:
    """An unannotated target of unknown rank takes the rank the input implies (rank learning)."""
    if isinstance(x, TensorV) and x.shape.rank is not None and isinstance(t, TensorV) and t.shape.rank is None:
        ranks = [k for k in ranks_from_input(x.shape.rank) if k >= 0]
        if ranks:
            cx.dims(t, ranks, "target")


def _scalar_anyway(cx: OpContext, red: str, x) -> TensorV:
    """Operands of unknown rank: a reduced loss is still a scalar; 'none' stays unknown."""
    if red != "none" and isinstance(x, TensorV):
        return cx.tensor((), like=x)
    raise NotApplicable("operand unknown")


def _same(a: Shape, b: Shape) -> bool:
    return a.rank == b.rank and all(x == y for x, y in zip(a.dims, b.dims))


def _same_size(cx: OpContext, x: TensorV, t: TensorV) -> None:
    msg = lambda: (f"{cx.opname}: the target size {t.shape} must be the same as the input size {x.shape} "
           f"({cx.label(t, 'target')} vs {cx.label(x)})")
    if x.shape.rank != t.shape.rank:
        cx.fail(msg, "SH101")
    cx.require(conj(*(eq(a, b) for a, b in zip(x.shape.dims, t.shape.dims))), msg, "SH101")


def _is_float(t: TensorV) -> bool | None:
    if t.dtype is None:
        return None
    return t.dtype.startswith(("float", "bfloat", "complex"))


# ---- cross entropy / nll --------------------------------------------------------------------------------

CLASS_INDEX_DTYPES = ("int64", "uint8")


def _class_targets(cx: OpContext, x: TensorV, t: TensorV, weight) -> tuple:
    """Checks an input (C) / (N, C) / (N, C, d...) against class-index targets; returns the 'none' shape."""
    d, td = x.shape.dims, t.shape.dims
    if len(d) == 0:
        cx.fail(f"{cx.opname} needs an input with a class dimension, but {cx.label(x)} is a scalar", "SH102")
    c = d[1] if len(d) >= 2 else d[0]
    if isinstance(weight, TensorV) and weight.shape.rank is not None:
        wd = weight.shape.dims
        if len(wd) != 1:
            cx.fail(f"{cx.opname}: weight must be 1-D with one entry per class, got {weight.shape}", "SH102")
        cx.require(eq(wd[0], c), lambda: f"{cx.opname}: weight has {wd[0]} entries, but the input has {c} classes",
                   "SH101")
    want = (d[0],) + tuple(d[2:]) if len(d) >= 2 else ()
    if len(td) != len(want):
        cx.fail(f"{cx.opname} expects class-index targets of shape {Shape(want)} for input {x.shape}, but "
                f"{cx.label(t, 'the target')} is {t.shape}", "SH102")
    for a, b in zip(td, want):
        cx.require(eq(a, b), lambda: f"{cx.opname} expects class-index targets of shape {Shape(want)} for input "
                   f"{x.shape}, but {cx.label(t, 'the target')} is {t.shape}", "SH101")
    if t.dtype is not None and t.dtype not in CLASS_INDEX_DTYPES:
        cx.fail(f"{cx.opname} expects class-index targets of dtype int64 (or uint8), but "
                f"{cx.label(t, 'the target')} is {t.dtype}", "SH107")
    return want


@op("torch.nn.functional.cross_entropy")
def cross_entropy(cx: OpContext, input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    red = _reduction(cx, reduction, size_average, reduce)
    _learn_target(cx, input, target, lambda r: (r,) if _is_float(target) else (r - 1, r))
    try:
        _known(input, target)
    except NotApplicable:
        return _scalar_anyway(cx, red, input)
    ls = cx.float_of(label_smoothing)
    if ls is not None and not 0.0 <= ls <= 1.0:
        cx.fail(f"{cx.opname}: label_smoothing must be between 0.0 and 1.0, got {ls}", "SH107")
    probs = _is_float(target)
    if probs is None:
        probs = target.shape.rank == input.shape.rank
    if not probs:
        return _out(cx, red, _class_targets(cx, input, target, weight), input)
    if input.shape.rank == 0:
        cx.fail(f"{cx.opname} needs an input with a class dimension, but {cx.label(input)} is a scalar", "SH102")
    _same_size(cx, input, target)
    d = input.shape.dims
    if isinstance(weight, TensorV) and weight.shape.rank is not None:
        c = d[1] if len(d) >= 2 else d[0]
        cx.require(eq(weight.shape.dims[0], c) if weight.shape.rank == 1 else eq(0, 1),
                   lambda: f"{cx.opname}: weight must be 1-D with {c} entries, got {weight.shape}", "SH101")
    # probabilities promote with the input (float16 logits with float32 targets give float32)
    probs = cx.tensor(input.shape, dtype=result_dtype(input, target))
    return _out(cx, red, (d[0],) + tuple(d[2:]) if len(d) >= 2 else (), probs)


@op("torch.nn.functional.nll_loss")
def nll_loss(cx: OpContext, input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    red = _reduction(cx, reduction, size_average, reduce)
    _learn_target(cx, input, target, lambda r: (r - 1,))
    try:
        _known(input, target)
    except NotApplicable:
        return _scalar_anyway(cx, red, input)
    if _is_float(target):
        cx.fail(f"{cx.opname} expects integer class-index targets, but {cx.label(target, 'the target')} is "
                f"{target.dtype}", "SH107")
    return _out(cx, red, _class_targets(cx, input, target, weight), input)


# ---- regression losses -----------------------------------------------------------------------------------

def _sizes_differ(cx: OpContext, xs: Shape, ts: Shape) -> bool:
    """Whether input and target sizes differ for every admissible input — PyTorch then warns and
    broadcasts: ranks apart, or an axis provably unequal. Sizes the analysis only cannot prove
    equal (a reconstruction's `stride*int(sqrt(T))` against the image's height) are no warning:
    code that keeps them equal never sees PyTorch's."""
    if _same(xs, ts) or xs.rank is None or ts.rank is None:
        return False
    return xs.rank != ts.rank or any(cx.entails(ne(a, b)) for a, b in zip(xs.dims, ts.dims))


def _regression(cx: OpContext, x, t, red: str, weight=None) -> TensorV:
    try:
        _known(x, t)
    except NotApplicable:
        return _scalar_anyway(cx, red, x)
    if _sizes_differ(cx, x.shape, t.shape):
        cx.warn("SH201", f"{cx.opname}: the target size {t.shape} differs from the input size {x.shape}; they "
                f"broadcast, which rarely is what a loss means (e.g. [B, 1] against [B] gives [B, B])")
    shape = broadcast_shapes(cx, x.shape, t.shape)
    if isinstance(weight, TensorV) and weight.shape.rank is not None:
        _same_size(cx, x, weight)
    return _out(cx, red, shape, x)


def _regression_fn(name: str, extra: str):
    # The functional signatures differ only in their trailing keyword (beta / delta / weight).
    if extra == "beta":
        def rule(cx: OpContext, input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
            return _regression(cx, input, target, _reduction(cx, reduction, size_average, reduce))
    elif extra == "delta":
        def rule(cx: OpContext, input, target, reduction="mean", delta=1.0, weight=None):
            return _regression(cx, input, target, _reduction(cx, reduction), weight)
    else:
        def rule(cx: OpContext, input, target, size_average=None, reduce=None, reduction="mean", weight=None):
            return _regression(cx, input, target, _reduction(cx, reduction, size_average, reduce), weight)
    rule.__name__ = name
    return op(f"torch.nn.functional.{name}")(rule)


mse_loss = _regression_fn("mse_loss", "weight")
l1_loss = _regression_fn("l1_loss", "weight")
smooth_l1_loss = _regression_fn("smooth_l1_loss", "beta")
huber_loss = _regression_fn("huber_loss", "delta")


@op("torch.nn.functional.kl_div")
def kl_div(cx: OpContext, input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    _known(input, target)
    red = _reduction(cx, reduction, size_average, reduce, extra=("batchmean",))
    return _out(cx, red, broadcast_shapes(cx, input.shape, target.shape), input)


# ---- binary cross entropy -------------------------------------------------------------------------------

def _expand_into(cx: OpContext, w: TensorV, target: Shape, what: str) -> None:
    """`w.expand(broadcast(target, w))`: w must broadcast to target's shape without growing it."""
    joined = broadcast_shapes(cx, target, w.shape)
    if w.shape.rank > target.rank:
        cx.fail(f"{cx.opname}: {what} {w.shape} has more dimensions than the target {target}", "SH106")
    for a, b in zip(joined.dims, target.dims):
        cx.require(eq(a, b), lambda: f"{cx.opname}: {what} {w.shape} does not broadcast to the target {target}", "SH106")


@op("torch.nn.functional.binary_cross_entropy")
def binary_cross_entropy(cx: OpContext, input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    _known(input, target)
    red = _reduction(cx, reduction, size_average, reduce)
    _same_size(cx, input, target)
    if isinstance(weight, TensorV):
        _known(weight)
        _expand_into(cx, weight, target.shape, "weight")
    return _out(cx, red, input.shape, input)


@op("torch.nn.functional.binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(cx: OpContext, input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    _known(input, target)
    red = _reduction(cx, reduction, size_average, reduce)
    _same_size(cx, input, target)
    shape = input.shape
    for w in (pos_weight, weight):  # both multiply the elementwise loss, so both broadcast into it
        if isinstance(w, TensorV):
            _known(w)
            shape = broadcast_shapes(cx, shape, w.shape)
    return _out(cx, red, shape, input)


# ---- embedding / ranking losses ------------------------------------------------------------------------

@op("torch.nn.functional.cosine_embedding_loss")
def cosine_embedding_loss(cx: OpContext, input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    _known(input1, input2, target)
    red = _reduction(cx, reduction, size_average, reduce)
    tr = target.shape.rank
    if tr not in (0, 1):
        cx.fail(f"{cx.opname}: the target must be 0-D or 1-D, got {target.shape}", "SH102")
    want = 2 if tr == 1 else 1
    for x in (input1, input2):
        if x.shape.rank != want:
            cx.fail(f"{cx.opname}: a {tr}-D target expects {want}-D inputs, but {cx.label(x)} is {x.shape}", "SH102")
    both = broadcast_shapes(cx, input1.shape, input2.shape)
    return _out(cx, red, broadcast_shapes(cx, Shape(both.dims[:-1]), target.shape), input1)


@op("torch.nn.functional.margin_ranking_loss")
def margin_ranking_loss(cx: OpContext, input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    _known(input1, input2, target)
    red = _reduction(cx, reduction, size_average, reduce)
    if not input1.shape.rank == input2.shape.rank == target.shape.rank:
        cx.fail(f"{cx.opname}: all inputs should have the same number of dimensions, got {input1.shape}, "
                f"{input2.shape} and {target.shape}", "SH102")
    return _out(cx, red, broadcast_shapes(cx, input1.shape, input2.shape, target.shape), input1)


@op("torch.nn.functional.soft_margin_loss")
def soft_margin_loss(cx: OpContext, input, target, size_average=None, reduce=None, reduction="mean"):
    _known(input, target)
    red = _reduction(cx, reduction, size_average, reduce)
    _same_size(cx, input, target)
    return _out(cx, red, input.shape, input)


@op("torch.nn.functional.triplet_margin_loss")
def triplet_margin_loss(cx: OpContext, anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """Pairwise distances anchor-positive and anchor-negative (last dim reduced), then the reduction."""
    red = _reduction(cx, reduction, size_average, reduce)
    _known(anchor, positive, negative)
    ra, rp, rn = anchor.shape.rank, positive.shape.rank, negative.shape.rank
    if not ra == rp == rn:
        cx.fail(f"{cx.opname}: the anchor, positive, and negative tensors are expected to have the same number of "
                f"dimensions, but got anchor {ra}D, positive {rp}D and negative {rn}D", "SH102")
    dp = pairwise_distance(cx, anchor, positive, p, eps)
    dn = pairwise_distance(cx, anchor, negative, p, eps)
    if cx.bool_of(swap):
        dn = cx.tensor(broadcast_shapes(cx, dn.shape, pairwise_distance(cx, positive, negative, p, eps).shape),
                       dtype=dn.dtype)
    return _out(cx, red, broadcast_shapes(cx, dp.shape, dn.shape), anchor)


def _lengths(cx: OpContext, v, n, what: str) -> None:
    """input_lengths / target_lengths: one per batch element (a 1-D tensor or a sequence of ints)."""
    if isinstance(v, TensorV):
        if v.shape.rank is None:
            return
        count = v.shape.dims[0] if v.shape.rank == 1 else Expr.const(1)
        if v.shape.rank > 1:
            cx.fail(f"{cx.opname}: {what} must be a 1-D tensor, but {cx.label(v)} is {v.shape.rank}D {v.shape}",
                    "SH102")
    elif isinstance(v, (TupleV, ListV)) and v.items is not None:
        count = Expr.const(len(v.items))
    else:
        return
    cx.require(eq(count, n), lambda: f"{cx.opname}: {what} must be of size batch_size ({n}), got {count}", "SH101")


@op("torch.nn.functional.ctc_loss", "torch.ctc_loss")
def ctc_loss(cx: OpContext, log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """log_probs [T, N, C] (or [T, C] unbatched); padded targets [N, S] or concatenated 1-D targets."""
    red = _reduction(cx, reduction)
    _known(log_probs, targets)
    lp, t = log_probs.shape, targets.shape
    if lp.rank not in (2, 3):
        cx.fail(f"{cx.opname}: expected a 3-D log_probs [T, N, C] (or 2-D unbatched), but {cx.label(log_probs)} is "
                f"{lp.rank}D {lp}", "SH102")
    if lp.rank == 3:
        n = lp.dims[1]
        if t.rank == 2:
            cx.require(eq(t.dims[0], n), lambda: f"{cx.opname}: padded targets {t} must have one row per batch element "
                       f"({n}, dimension 1 of log_probs {lp})", "SH101")
        elif t.rank != 1:
            cx.fail(f"{cx.opname}: targets must be 2-D padded [N, S] or 1-D concatenated, but got {t.rank}D {t}",
                    "SH102")
        _lengths(cx, input_lengths, n, "input_lengths")
        _lengths(cx, target_lengths, n, "target_lengths")
    return _out(cx, red, lp.dims[1:2] if lp.rank == 3 else (), log_probs)


# ---- nn layers: the constructor stores the keywords, forward calls the functional twin ---------------------

def _layer(name: str, fn, ctor, keys: tuple, nargs: int = 2) -> None:
    rule = module(f"torch.nn.{name}")(ctor)

    def fwd(cx: OpContext, m, *args):
        if len(args) != nargs:
            raise NotApplicable("arguments")
        return fn(cx, *args, **{k: m.cfg[k] for k in keys})
    rule.forward(fwd, twin=fn)


def CrossEntropyLoss(cx, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                     label_smoothing=0.0):
    return None


def NLLLoss(cx, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return None


def _legacy3(cx, size_average=None, reduce=None, reduction="mean"):
    return None


def SmoothL1Loss(cx, size_average=None, reduce=None, reduction="mean", beta=1.0):
    return None


def HuberLoss(cx, reduction="mean", delta=1.0):
    return None


def BCELoss(cx, weight=None, size_average=None, reduce=None, reduction="mean"):
    return None


def BCEWithLogitsLoss(cx, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
    return None


def KLDivLoss(cx, size_average=None, reduce=None, reduction="mean", log_target=False):
    return None


def _margin(cx, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    return None


_LEGACY = ("size_average", "reduce", "reduction")
_layer("CrossEntropyLoss", cross_entropy, CrossEntropyLoss, ("weight",) + _LEGACY + ("label_smoothing",))
_layer("NLLLoss", nll_loss, NLLLoss, ("weight",) + _LEGACY)
_layer("MSELoss", mse_loss, _legacy3, _LEGACY)
_layer("L1Loss", l1_loss, _legacy3, _LEGACY)
_layer("SmoothL1Loss", smooth_l1_loss, SmoothL1Loss, _LEGACY + ("beta",))
_layer("HuberLoss", huber_loss, HuberLoss, ("reduction", "delta"))
_layer("BCELoss", binary_cross_entropy, BCELoss, ("weight",) + _LEGACY)
_layer("BCEWithLogitsLoss", binary_cross_entropy_with_logits, BCEWithLogitsLoss,
       ("weight",) + _LEGACY + ("pos_weight",))
_layer("KLDivLoss", kl_div, KLDivLoss, _LEGACY + ("log_target",))
_layer("SoftMarginLoss", soft_margin_loss, _legacy3, _LEGACY)
_layer("CosineEmbeddingLoss", cosine_embedding_loss, _margin, ("margin",) + _LEGACY, nargs=3)
_layer("MarginRankingLoss", margin_ranking_loss, _margin, ("margin",) + _LEGACY, nargs=3)


def TripletMarginLoss(cx, margin=1.0, p=2.0, eps=1e-06, swap=False, size_average=None, reduce=None,
                      reduction="mean"):
    return None


def CTCLoss(cx, blank=0, reduction="mean", zero_infinity=False):
    return None


_layer("TripletMarginLoss", triplet_margin_loss, TripletMarginLoss, ("margin", "p", "eps", "swap") + _LEGACY,
       nargs=3)
_layer("CTCLoss", ctc_loss, CTCLoss, ("blank", "reduction", "zero_infinity"), nargs=4)
