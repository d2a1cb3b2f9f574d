"""Operators the case corpus met that no other family covers: repeat_interleave, cdist,
cosine/pairwise distances (and their layers), GLU, PReLU, channel shuffle, matrix/vector norms of
torch.linalg, multinomial, and the causal-mask helper of nn.Transformer."""
from __future__ import annotations

from ...shapes.expr import Expr
from ...shapes.shape import Shape, divides, disj, eq, ge
from ...shapes.values import TensorV
from ..common import broadcast_shapes
from ..context import NotApplicable, OpContext
from ..registry import module, op


def _t(v) -> TensorV:
    if not isinstance(v, TensorV) or v.shape.rank is None:
        raise NotApplicable("tensor of known rank needed")
    return v


@op("torch.repeat_interleave", "Tensor.repeat_interleave")
def repeat_interleave(cx: OpContext, input, repeats=None, dim=None, *, output_size=None):
    x = _t(input)
    r = cx.int_of(repeats)
    if r is None:
        if isinstance(repeats, TensorV):
            return cx.tensor([cx.fresh("repeated")], like=x)
        raise NotApplicable("repeats unknown")
    cx.require(ge(r, 0), lambda: f"{cx.opname}: repeats must be non-negative, got {r}", "SH107")
    if cx.is_none(dim):
        n = Expr.const(1)
        for d in x.shape.dims:
            n = n * d
        return cx.tensor([n * r], like=x)
    k = cx.norm_dim(dim, x.shape.rank)
    dims = list(x.shape.dims)
    dims[k] = dims[k] * r
    return cx.tensor(dims, like=x)


@op("torch.cdist")
def cdist(cx: OpContext, x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    a, b = _t(x1), _t(x2)
    if a.shape.rank < 2 or b.shape.rank < 2:
        cx.fail(f"{cx.opname}: cdist only supports at least 2D tensors, got {a.shape.rank}D and {b.shape.rank}D",
                "SH102")
    cx.require(eq(a.shape.dims[-1], b.shape.dims[-1]),
               lambda: f"{cx.opname}: X1 and X2 must have the same number of columns: {a.shape.dims[-1]} vs "
               f"{b.shape.dims[-1]}", "SH101")
    batch = broadcast_shapes(cx, Shape(a.shape.dims[:-2]), Shape(b.shape.dims[:-2]))
    return cx.tensor(batch.dims + (a.shape.dims[-2], b.shape.dims[-2]), like=a)


@op("torch.nn.functional.cosine_similarity", "torch.cosine_similarity")
def cosine_similarity(cx: OpContext, x1, x2, dim=1, eps=1e-8):
    a, b = _t(x1), _t(x2)
    s = broadcast_shapes(cx, a.shape, b.shape)
    k = cx.norm_dim(dim, s.rank)
    return cx.tensor(s.dims[:k] + s.dims[k + 1:], like=a)


@op("torch.nn.functional.pairwise_distance", "torch.pairwise_distance")
def pairwise_distance(cx: OpContext, x1, x2, p=2.0, eps=1e-6, keepdim=False):
    a, b = _t(x1), _t(x2)
    s = broadcast_shapes(cx, a.shape, b.shape)
    if s.rank == 0:
        return cx.tensor([], like=a)
    keep = cx.bool_of(keepdim)
    return cx.tensor(s.dims[:-1] + ((Expr.const(1),) if keep else ()), like=a)


@module("torch.nn.CosineSimilarity")
def CosineSimilarity(cx: OpContext, dim=1, eps=1e-08):
    return None


@CosineSimilarity.forward
def _cos_fwd(cx: OpContext, m, x1, x2):
    return cosine_similarity(cx, x1, x2, m.cfg["dim"])


_cos_fwd.twin = cosine_similarity


@module("torch.nn.PairwiseDistance")
def PairwiseDistance(cx: OpContext, p=2.0, eps=1e-06, keepdim=False):
    return None


@PairwiseDistance.forward
def _pd_fwd(cx: OpContext, m, x1, x2):
    return pairwise_distance(cx, x1, x2, m.cfg["p"], m.cfg["eps"], m.cfg["keepdim"])


_pd_fwd.twin = pairwise_distance


@op("torch.nn.functional.prelu", "torch.prelu")
def prelu(cx: OpContext, input, weight):
    """One slope, or one per channel (dim 1; the only dim of a 1D input)."""
    x, w = _t(input), _t(weight)
    if w.shape.rank > 1:
        cx.fail(f"{cx.opname}: expected `weight` to be a scalar or 1D tensor, but {cx.label(w)} is "
                f"{w.shape.rank}D {w.shape}", "SH102")
    n = w.shape.dims[0] if w.shape.rank == 1 else Expr.const(1)
    if x.shape.rank == 0:
        cx.require(eq(n, 1), lambda: f"{cx.opname}: a zero-dim input takes a single slope, but got {n} parameters",
                   "SH101")
        return cx.tensor(x.shape, like=x)
    c = x.shape.dims[1] if x.shape.rank >= 2 else Expr.const(1)
    cx.require(disj(eq(n, 1), eq(n, c)), lambda: f"{cx.opname}: mismatch of parameter numbers and input channel size: "
               f"found {n} parameters and channel size {c} (dimension 1 of {cx.label(x)} {x.shape})", "SH101")
    return cx.tensor(x.shape, like=x)


@module("torch.nn.PReLU")
def PReLU(cx: OpContext, num_parameters=1, init=0.25, device=None, dtype=None):
    n = cx.int_of(num_parameters)
    if n is not None:
        cx.require(ge(n, 1), lambda: f"{cx.opname}: num_parameters must be positive, got {n}", "SH107")
    return None


@PReLU.forward
def _prelu_fwd(cx: OpContext, m, input):
    n = cx.int_of(m.cfg["num_parameters"])
    if n is None:
        raise NotApplicable("num_parameters unknown")
    return prelu(cx, input, cx.tensor([n]))


@PReLU.params
def _prelu_params(cx: OpContext, m):
    n = cx.int_of(m.cfg["num_parameters"])
    return {} if n is None else {"weight": (n,)}


_prelu_fwd.twin = prelu


@op("torch.nn.functional.channel_shuffle", "torch.channel_shuffle", "torch.native_channel_shuffle")
def channel_shuffle(cx: OpContext, input, groups):
    x = _t(input)
    if x.shape.rank < 3:
        cx.fail(f"{cx.opname}: channel_shuffle expects an input with more than 2 dimensions, but {cx.label(x)} is "
                f"{x.shape.rank}D {x.shape}", "SH102")
    g = cx.int_of(groups)
    if g is None:
        raise NotApplicable("groups unknown")
    cx.require(ge(g, 1), lambda: f"{cx.opname}: the number of groups to divide channels in must be positive, got {g}",
               "SH107")
    c = x.shape.dims[1]
    cx.require(divides(g, c), lambda: f"{cx.opname}: the number of channels ({c}, dimension 1 of {cx.label(x)} {x.shape}) "
               f"must be divisible by groups ({g})", "SH107")
    return cx.tensor(x.shape, like=x)


@module("torch.nn.ChannelShuffle")
def ChannelShuffle(cx: OpContext, groups):
    return None


@ChannelShuffle.forward
def _cs_fwd(cx: OpContext, m, input):
    return channel_shuffle(cx, input, m.cfg["groups"])


_cs_fwd.twin = channel_shuffle


@op("torch.nn.functional.glu")
def glu(cx: OpContext, input, dim=-1):
    x = _t(input)
    if x.shape.rank == 0:
        cx.fail(f"{cx.opname}: glu does not support scalars", "SH102")
    k = cx.norm_dim(dim, x.shape.rank)
    n = x.shape.dims[k]
    cx.require(divides(2, n), lambda: f"{cx.opname}: halving dimension must be even, but dimension {k} is {n}", "SH107")
    dims = list(x.shape.dims)
    dims[k] = n // 2
    return cx.tensor(dims, like=x)


@module("torch.nn.GLU")
def GLU(cx: OpContext, dim=-1):
    return None


@GLU.forward
def _glu_fwd(cx: OpContext, m, input):
    return glu(cx, input, m.cfg["dim"])


def _reduce(cx: OpContext, x: TensorV, dims, keepdim) -> TensorV:
    r = x.shape.rank
    ks = sorted({cx.norm_dim(d, r) for d in dims})
    keep = cx.bool_of(keepdim)
    out = [Expr.const(1) if i in ks else d for i, d in enumerate(x.shape.dims) if keep or i not in ks]
    return cx.tensor(out, like=x)


@op("torch.linalg.matrix_norm")
def matrix_norm(cx: OpContext, A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    x = _t(A)
    if x.shape.rank < 2:
        cx.fail(f"{cx.opname}: the input must have at least 2 dimensions, got {x.shape.rank}D", "SH102")
    dims = cx.ints_of(dim)
    if dims is None or len(dims) != 2 or any(d.value is None for d in dims):
        raise NotApplicable("dims")
    return _reduce(cx, x, [d.value for d in dims], keepdim)


@op("torch.linalg.vector_norm")
def vector_norm(cx: OpContext, x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    t = _t(x)
    if cx.is_none(dim):
        return cx.tensor([Expr.const(1)] * t.shape.rank if cx.bool_of(keepdim) else [], like=t)
    dims = cx.ints_of(dim)
    if dims is None or any(d.value is None for d in dims):
        raise NotApplicable("dims")
    return _reduce(cx, t, [d.value for d in dims], keepdim)


@op("torch.multinomial", "Tensor.multinomial")
def multinomial(cx: OpContext, input, num_samples, replacement=False, *, generator=None, out=None):
    x = _t(input)
    n = cx.int_of(num_samples)
    if n is None:
        raise NotApplicable("num_samples")
    if x.shape.rank not in (1, 2):
        cx.fail(f"{cx.opname}: prob_dist must be 1 or 2 dim, got {x.shape.rank}D", "SH102")
    cx.require(ge(n, 1), lambda: f"{cx.opname}: cannot sample n_sample <= 0 samples", "SH107")
    if cx.bool_of(replacement) is False:
        cx.require(ge(x.shape.dims[-1], n), lambda: f"{cx.opname}: cannot sample {n} > {x.shape.dims[-1]} samples without "
                   "replacement", "SH107")
    return cx.tensor(x.shape.dims[:-1] + (n,), dtype="int64")


@op("torch.nn.Transformer.generate_square_subsequent_mask")
def square_subsequent_mask(cx: OpContext, sz, device=None, dtype=None):
    n = cx.int_of(sz)
    if n is None:
        raise NotApplicable("size")
    return cx.tensor([n, n], dtype="float32")
