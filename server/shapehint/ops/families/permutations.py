"""Permutations of a tensor's dimensions: permute, transpose/swapaxes, t, .T/.mT/.H/.mH,
movedim and rot90, and channel_shuffle (a permutation of the channels). Each result but rot90's
and channel_shuffle's (copies) is a view with permuted strides, so a later `view` is rejected
exactly when PyTorch rejects it (the stride model: ops/common.py)."""
from __future__ import annotations

from ...shapes.rearranged import Swapped
from ...shapes.shape import Shape, divides, ge
from ...shapes.values import IntV, ListV, TensorV, TupleV
from ..arguments import known_tensor, ranked_tensor
from ..common import dim_list, located, strides_of, view_result
from ..context import NotApplicable, OpContext
from ..edges import axiswise_or_edge
from ..registry import module, op


def permuted(cx: OpContext, x: TensorV, perm: list, what: str) -> TensorV:
    dims = x.shape.dims
    st = strides_of(x)
    new_st = [st[p] for p in perm] if st is not None else None
    return view_result(cx, [dims[p] for p in perm], x, new_st, located(cx, what))


@op("torch.permute", "Tensor.permute")
def permute(cx: OpContext, input, *dims, **kw):
    x = known_tensor(input)
    if not dims and "dims" in kw:  # x.permute(dims=(0, 2, 1))
        dims = (kw["dims"],)
    if len(dims) == 1 and isinstance(dims[0], (TupleV, ListV)):
        dims = dims[0].items
        if dims is None:
            raise NotApplicable("dims unknown")
    if not all(isinstance(d, (IntV, int)) for d in dims):
        # (`x.permute(first + [k + i for i in ...])`: a list the analysis did not build is no
        # permutation of one axis)
        raise NotApplicable("dims unknown")
    # the permutation names every axis: an input that gets past it has exactly that rank, as
    # `B, C, H, W = x.shape` teaches it
    shape = cx.dims(x, len(dims) if x.shape.rank is None else None)
    if len(dims) != len(shape):
        cx.fail(f"{cx.opname}: the permutation has {len(dims)} dims but {cx.label(x)} {x.shape} has "
                f"{len(shape)}", "SH102")
    perm = [cx.norm_dim(d, len(shape)) for d in dims]
    if len(set(perm)) != len(perm):
        cx.fail(f"{cx.opname}: repeated dim in the permutation {perm}", "SH107")
    return permuted(cx, x, perm, "permuted")


def _swap(cx, x, a, b, what="transposed"):
    shape = cx.dims(x, None)
    r = len(shape)
    i, j = cx.norm_dim(a, r, "dim0"), cx.norm_dim(b, r, "dim1")
    if r == 0:
        return x
    perm = list(range(r))
    perm[i], perm[j] = perm[j], perm[i]
    return permuted(cx, x, perm, what)


@op("torch.transpose", "Tensor.transpose", "torch.swapaxes", "Tensor.swapaxes", "torch.swapdims",
    "Tensor.swapdims", "Tensor.transpose_")
def transpose(cx: OpContext, input, dim0, dim1):
    x = known_tensor(input)
    a, b = cx.const_int(dim0), cx.const_int(dim1)
    if x.shape.rank is None and a is not None and b is not None:  # `k.transpose(-1, -2)` of `[*x, n, d]`
        return axiswise_or_edge(cx, x, [a, b], lambda t: _swap(cx, t, dim0, dim1), Swapped(a, b))
    return _swap(cx, x, dim0, dim1)


@op("torch.t", "Tensor.t", "Tensor.t_")
def t(cx: OpContext, input):
    x = known_tensor(input)
    r = len(cx.dims(x, None))
    if r > 2:
        cx.fail(f"{cx.opname} expects a tensor with at most 2 dimensions, but {cx.label(x)} is {r}D {x.shape}; "
                "use .mT or transpose()", "SH102")
    return x if r < 2 else _swap(cx, x, 0, 1)


@op("Tensor.T")
def T(cx: OpContext, self):
    x = known_tensor(self)
    r = len(cx.dims(x, None))
    if r < 2:
        return x
    if r != 2:
        cx.warn("SH203", f".T on {cx.label(x)} {x.shape} reverses all {r} dimensions (deprecated for "
                "rank ≠ 2); use .mT or permute")
    return permuted(cx, x, list(range(r - 1, -1, -1)), "transposed")


@op("Tensor.mT")
def mT(cx: OpContext, self):
    x = known_tensor(self)
    if x.shape.rank == 0:
        return x  # identity (deprecated) on 0-dim tensors
    if x.shape.rank is not None and x.shape.rank < 2:
        cx.fail(f".mT needs a tensor with at least 2 dimensions, but {cx.label(x)} is {x.shape.rank}D "
                f"{x.shape}", "SH102")
    if x.shape.rank is None:
        cx.dim(x, -2)
        s = x.shape
        if s.rank is None:
            return cx.tensor(Shape(s.dims, s.star, s.suffix[:-2] + (s.suffix[-1], s.suffix[-2])), like=x)
    return _swap(cx, x, -2, -1)


@op("torch.movedim", "Tensor.movedim", "torch.moveaxis", "Tensor.moveaxis")
def movedim(cx: OpContext, input, source, destination):
    x = known_tensor(input)
    r = len(cx.dims(x, None))
    src, dst = dim_list(cx, source, r, "source"), dim_list(cx, destination, r, "destination")
    if len(src) != len(dst):
        cx.fail(f"{cx.opname}: source and destination have different lengths ({len(src)} vs {len(dst)})", "SH107")
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        cx.fail(f"{cx.opname}: repeated dim in source or destination", "SH107")
    perm: list = [None] * r
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(i for i in range(r) if i not in src)
    perm = [p if p is not None else next(rest) for p in perm]
    return permuted(cx, x, perm, "moved")


# ---- conjugate transposes ------------------------------------------------------------------

@op("Tensor.H")
def H(cx: OpContext, self):
    x = known_tensor(self)
    r = len(cx.dims(x, None))
    if r == 0:
        return x  # deprecated identity on 0-dim tensors
    if r != 2:
        cx.fail(f".H is only supported on matrices (2-D tensors), but {cx.label(x)} is {r}D {x.shape}; for "
                "batches of matrices use .mH", "SH102")
    return _swap(cx, x, 0, 1)


@op("Tensor.mH", "Tensor.adjoint", "torch.adjoint")
def mH(cx: OpContext, self):
    x = known_tensor(self)
    if x.shape.rank == 1:  # 0-dim: deprecated identity, as for .mT
        cx.fail(f"{cx.opname}: .mH is only supported on matrices or batches of matrices, but {cx.label(x)} is "
                f"{x.shape.rank}D {x.shape}", "SH102")
    return mT(cx, x)


@op("torch.rot90", "Tensor.rot90")
def rot90(cx: OpContext, input, k=1, dims=(0, 1)):
    x = known_tensor(input)
    shape = cx.dims(x, None)
    ds = dim_list(cx, dims, max(len(shape), 1))
    if ds is None or len(ds) != 2:
        cx.fail(f"{cx.opname}: expected total rotation dims == 2, but got dims = {0 if ds is None else len(ds)}",
                "SH107")
    if len(shape) < 2:
        cx.fail(f"{cx.opname}: expected total dims >= 2, but {cx.label(x)} is {len(shape)}D {x.shape}", "SH102")
    if ds[0] == ds[1]:
        cx.fail(f"{cx.opname}: expected rotation dims to be different, but got dim0 = {ds[0]} and dim1 = {ds[1]}",
                "SH107")
    turns = cx.const_int(k)
    if turns is None:
        raise NotApplicable("k unknown")
    out = list(shape)
    if turns % 2:
        out[ds[0]], out[ds[1]] = out[ds[1]], out[ds[0]]
    return cx.tensor(out, like=x)  # rot90 copies (flip + transpose)


@op("torch.nn.functional.channel_shuffle", "torch.channel_shuffle", "torch.native_channel_shuffle")
def channel_shuffle(cx: OpContext, input, groups):
    x = ranked_tensor(input)
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


@ChannelShuffle.forward(twin=channel_shuffle)
def _cs_fwd(cx: OpContext, m, input):
    return channel_shuffle(cx, input, m.cfg["groups"])
