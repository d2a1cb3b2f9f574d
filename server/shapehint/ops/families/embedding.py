"""Embeddings: F.embedding / nn.Embedding, F.embedding_bag / nn.EmbeddingBag, F.one_hot.

Index values are data: an out-of-range index is not a shape error and is not modelled. What is
modelled: the output shape (input.shape + [embedding_dim]), the dtype of the indices when known
(integers only), the bag layouts of EmbeddingBag, and `one_hot(x)` without num_classes, whose
class count depends on the data (a fresh symbol).
"""
from __future__ import annotations

from ...shapes.shape import Shape, conj, eq, ge, lt
from ...shapes.values import TensorV
from ..arguments import need_int, opt_int, size_or_fresh
from ..context import NotApplicable, OpContext
from ..registry import module, op

INDEX_DTYPES = ("int64", "int32")


def _indices(cx: OpContext, x, what: str = "indices", allowed=INDEX_DTYPES) -> None:
    if not isinstance(x, TensorV):
        raise NotApplicable("indices unknown")
    if x.dtype is not None and x.dtype not in allowed:
        cx.fail(f"{cx.opname} expects integer {what} ({' or '.join(allowed)}), but {cx.label(x)} is {x.dtype}",
                "SH107")


def _append(cx: OpContext, x: TensorV, d, dtype=None) -> TensorV:
    s = x.shape
    if s.rank is not None:
        return cx.tensor(s.dims + (d,), dtype=dtype)
    return cx.tensor(Shape(s.dims, s.star, s.suffix + (d,)), dtype=dtype)


def _padding_idx(cx: OpContext, padding_idx, n) -> None:
    p = opt_int(cx, padding_idx, "padding_idx")
    if p is not None:
        cx.require(conj(ge(p, -n), lt(p, n)), lambda: f"{cx.opname}: padding_idx={p} must be within num_embeddings={n}",
                   "SH105")


@op("torch.nn.functional.embedding")
def embedding(cx: OpContext, input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    w = cx.dims(weight, 2, "weight")
    _indices(cx, input)
    _padding_idx(cx, padding_idx, w[0])
    return _append(cx, input, w[1], weight.dtype)


@module("torch.nn.Embedding")
def Embedding(cx: OpContext, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
    n = cx.int_of(num_embeddings)
    if n is not None:
        _padding_idx(cx, padding_idx, n)


@Embedding.forward(twin=embedding)
def _emb_fwd(cx: OpContext, m, input):
    _indices(cx, input)
    # (a width the analysis does not know, `nn.Embedding(cfg.text.vocab, cfg.text.width)` read off a
    # nested configuration: the index axes are still the output's)
    return _append(cx, input, size_or_fresh(cx, m.cfg["embedding_dim"]), "float32")


@Embedding.params
def _emb_params(cx: OpContext, m):
    return {"weight": [cx.int_of(m.cfg["num_embeddings"]), cx.int_of(m.cfg["embedding_dim"])]}


# ---- embedding bags -------------------------------------------------------------------------------

MODES = ("sum", "mean", "max")


def _bag(cx: OpContext, x, dim, offsets, per_sample_weights, mode, include_last_offset) -> TensorV:
    _indices(cx, x)
    md = cx.str_of(mode)
    if md is not None and md not in MODES:
        cx.fail(f"{cx.opname}: mode must be one of 'sum', 'mean', 'max', got {md!r}", "SH107")
    # an input of unknown rank takes the rank the offsets ask for (1-D bags need them)
    d = cx.dims(x, (2, 1) if cx.is_none(offsets) else (1, 2), "input")
    if len(d) == 2:
        if not cx.is_none(offsets):
            cx.fail(f"{cx.opname}: with a 2-D input {x.shape} (fixed-length bags), offsets must be None", "SH107")
        bags = d[0]
    else:
        if not isinstance(offsets, TensorV):
            if cx.is_none(offsets):
                cx.fail(f"{cx.opname}: a 1-D input needs offsets (a 1-D tensor of bag starts)", "SH107")
            raise NotApplicable("offsets unknown")
        o = cx.dims(offsets, 1, "offsets")
        last = cx.bool_of(include_last_offset)
        if last is None:
            raise NotApplicable("include_last_offset unknown")
        bags = o[0] - 1 if last else o[0]
        if last:
            cx.require(ge(bags, 0), lambda: f"{cx.opname}: include_last_offset=True needs at least one offset", "SH107")
    if not cx.is_none(per_sample_weights):
        if md is not None and md != "sum":
            cx.fail(f"{cx.opname}: per_sample_weights is only supported for mode='sum' (got mode={md!r})", "SH107")
        if isinstance(per_sample_weights, TensorV) and per_sample_weights.shape.rank is not None:
            ps = per_sample_weights.shape
            if ps.rank != len(d):
                cx.fail(f"{cx.opname}: per_sample_weights {ps} must have the shape of the input {x.shape}", "SH101")
            for a, b in zip(ps.dims, d):
                cx.require(eq(a, b), lambda: f"{cx.opname}: per_sample_weights {ps} must have the shape of the input "
                           f"{x.shape}", "SH101")
    return cx.tensor((bags, dim), dtype="float32")


@op("torch.nn.functional.embedding_bag")
def embedding_bag(cx: OpContext, input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    if isinstance(weight, TensorV) and weight.dtype == "int64":
        # the old argument order, (weight, input): PyTorch swaps them back, with a deprecation
        # warning, when `input` is floating point; unknown dtype, unknown order
        if not (isinstance(input, TensorV) and input.dtype is not None):
            raise NotApplicable("argument order unknown (weights and indices swapped?)")
        if input.dtype.startswith(("float", "bfloat")):
            input, weight = weight, input
    w = cx.dims(weight, 2, "weight")
    out = _bag(cx, input, w[1], offsets, per_sample_weights, mode, include_last_offset)
    return cx.tensor(out.shape, like=weight)


@module("torch.nn.EmbeddingBag")
def EmbeddingBag(cx: OpContext, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
    n = cx.int_of(num_embeddings)
    if n is not None:
        _padding_idx(cx, padding_idx, n)


@EmbeddingBag.forward(twin=embedding_bag)
def _bag_fwd(cx: OpContext, m, input, offsets=None, per_sample_weights=None):
    return _bag(cx, input, size_or_fresh(cx, m.cfg["embedding_dim"]), offsets, per_sample_weights,
                m.cfg["mode"], m.cfg["include_last_offset"])


@EmbeddingBag.params
def _bag_params(cx: OpContext, m):
    return {"weight": [cx.int_of(m.cfg["num_embeddings"]), cx.int_of(m.cfg["embedding_dim"])]}


# ---- one_hot ------------------------------------------------------------------------------------------

@op("torch.nn.functional.one_hot")
def one_hot(cx: OpContext, tensor, num_classes=-1):
    _indices(cx, tensor, "class indices", ("int64",))
    n = need_int(cx, num_classes, "num_classes")
    cx.require(ge(n, -1), lambda: f"{cx.opname}: num_classes must be -1 or non-negative, got {n}", "SH107")
    if n.value == -1:
        n = cx.fresh("num_classes")  # max(tensor) + 1: data-dependent
    return _append(cx, tensor, n, "int64")
