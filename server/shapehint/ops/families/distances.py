"""Distances between tensors: cdist, cosine similarity and pairwise distance (and their layers)."""
from __future__ import annotations

from ...shapes.expr import Expr
from ...shapes.shape import Shape, eq
from ..arguments import ranked_tensor
from ..common import broadcast_shapes
from ..context import OpContext
from ..registry import module, op


@op("torch.cdist")
def cdist(cx: OpContext, x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    a, b = ranked_tensor(x1), ranked_tensor(x2)
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
    a, b = ranked_tensor(x1), ranked_tensor(x2)
    s = broadcast_shapes(cx, a.shape, b.shape)
    k = cx.norm_dim(dim, s.rank)
    return cx.tensor(s.dims[:k] + s.dims[k + 1:], like=a)


@op("torch.nn.functional.pairwise_distance", "torch.pairwise_distance")
def pairwise_distance(cx: OpContext, x1, x2, p=2.0, eps=1e-6, keepdim=False):
    a, b = ranked_tensor(x1), ranked_tensor(x2)
    s = broadcast_shapes(cx, a.shape, b.shape)
    if s.rank == 0:
        return cx.tensor([], like=a)
    keep = cx.bool_of(keepdim)
    return cx.tensor(s.dims[:-1] + ((Expr.const(1),) if keep else ()), like=a)


@module("torch.nn.CosineSimilarity")
def CosineSimilarity(cx: OpContext, dim=1, eps=1e-08):
    return None


@CosineSimilarity.forward(twin=cosine_similarity)
def _cos_fwd(cx: OpContext, m, x1, x2):
    return cosine_similarity(cx, x1, x2, m.cfg["dim"])


@module("torch.nn.PairwiseDistance")
def PairwiseDistance(cx: OpContext, p=2.0, eps=1e-06, keepdim=False):
    return None


@PairwiseDistance.forward(twin=pairwise_distance)
def _pd_fwd(cx: OpContext, m, x1, x2):
    return pairwise_distance(cx, x1, x2, m.cfg["p"], m.cfg["eps"], m.cfg["keepdim"])
