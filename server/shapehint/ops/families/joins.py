"""Joining and splitting: cat/stack/hstack/vstack/dstack/column_stack, split/chunk/unbind/tensor_split/
hsplit/vsplit/dsplit, meshgrid, broadcast_tensors, atleast_Nd, block_diag, cartesian_prod, combinations.

Splits return a TupleV when the number of pieces is known (so `q, k, v = x.split(C, 2)`
unpacks); a symbolic count that cannot be decided gives a ListV of unknown length whose
element has a fresh size.
"""
from __future__ import annotations

import math

from ...shapes.expr import Expr, emin
from ...shapes.shape import Shape, divides, eq, ge, is_dyn, lt
from ...shapes.values import ListV, TensorV, TupleV, Value
from ..common import broadcast_shapes, result_dtype, shape_str, strides_of, view_result
from ..edges import axiswise, joined
from ..context import NotApplicable, OpContext
from ..registry import op
from ..pieces import if_counted, whole_again
from ..grown import grown_cat, repeated
from ..empty_operands import kept, may_be_skipped


def _tensors(cx: OpContext, seq, what="tensors", skips: bool = False) -> list:
    """The operands, each of known rank; with `skips` (cat), those that may be the skipped empty
    tensor keep an unknown rank."""
    if isinstance(seq, TensorV):
        raise NotApplicable("a tensor passed as the sequence")
    if not isinstance(seq, (TupleV, ListV)) or seq.items is None:
        raise NotApplicable(f"{what} unknown")
    items = list(seq.items)
    if not all(isinstance(t, TensorV) for t in items):
        raise NotApplicable("an operand is unknown")
    ranks = {t.shape.rank for t in items if t.shape.rank is not None and t.shape.rank != 1}
    if len(ranks) == 1:  # cat/stack need equal ranks: an operand of unknown rank takes the others'
        r = ranks.pop()
        for t in items:
            if t.shape.rank is None and not (skips and may_be_skipped(cx, t)):
                cx.dims(t, r)
        if skips:
            return items
    if not all(t.shape.rank is not None for t in items):
        raise NotApplicable("an operand is unknown")
    return items


def _same_unknown(seq) -> bool:
    """A sequence of tensors all of unknown rank (edges.joined decides whether they share it)."""
    return isinstance(seq, (TupleV, ListV)) and bool(seq.items) and \
        all(isinstance(t, TensorV) and t.shape.rank is None for t in seq.items)


def _best(ds: list) -> Expr:
    """Of dimensions required equal, the one that prints best: a constant, else a named one, not `?`."""
    for d in ds:
        if d.value is not None:
            return d
    return next((d for d in ds if not is_dyn(d)), ds[0])


@op("torch.cat", "torch.concat", "torch.concatenate")
def cat(cx: OpContext, tensors, dim=0, *, out=None, axis=None):
    dim = dim if axis is None else axis
    if (got := grown_cat(cx, tensors, dim) or whole_again(cx, tensors, dim)) is not None:
        return got
    rep = repeated(cx, tensors)
    if rep is not None:
        elem, n = rep
        if elem.shape.rank == 0:
            cx.fail(f"{cx.opname}: zero-dimensional tensors cannot be concatenated", "SH102")
        d = cx.norm_dim(dim, elem.shape.rank)
        dims = list(elem.shape.dims)
        dims[d] = n * dims[d]
        return cx.tensor(dims, like=elem)
    d = cx.const_int(dim)
    if _same_unknown(tensors) and d is not None and len(tensors.items) == 1:
        cx.dim(tensors.items[0], d)  # `torch.cat([x], 1)`: a copy of x, of any rank with that axis
        return cx.tensor(tensors.items[0].shape, like=tensors.items[0])
    if _same_unknown(tensors) and d is not None:  # `torch.cat([h, res], dim=-1)` of `[*x, d]`s
        return joined(cx, tensors.items, d, lambda parts: cat(cx, TupleV(tuple(parts)), dim))
    ts = _tensors(cx, tensors, skips=True)
    if not ts:
        cx.fail(f"{cx.opname} expects a non-empty list of tensors", "SH107")
    for i, t in enumerate(ts):
        if t.shape.rank == 0:
            cx.fail(f"{cx.opname}: tensor {i} is zero-dimensional and cannot be concatenated", "SH102")
    live, summed = kept(ts)
    if not live:
        return cx.tensor(ts[0].shape, dtype=result_dtype(*ts))
    i0, first = live[0]
    r = first.shape.rank
    d = cx.norm_dim(dim, r)
    total = Expr.const(0)
    for i, t in live:
        if t.shape.rank != r:
            cx.fail(f"{cx.opname}: tensors must have the same number of dimensions: tensor {i0} is {r}D "
                    f"{first.shape} but tensor {i} is {t.shape.rank}D {t.shape}", "SH102")
        for k in range(r):
            if k != d:
                cx.require(eq(t.shape.dims[k], first.shape.dims[k]),
                           lambda: f"{cx.opname}: sizes must match except in dimension {d}, but tensor {i0} "
                           f"{first.shape} and tensor {i} {t.shape} differ in dimension {k} "
                           f"({first.shape.dims[k]} vs {t.shape.dims[k]})", "SH101")
        total = total + t.shape.dims[d]
    dims = [_best([t.shape.dims[k] for _, t in live]) for k in range(r)]
    dims[d] = total if summed else cx.fresh("?cat")
    return cx.tensor(dims, dtype=result_dtype(*ts))


@op("torch.stack")
def stack(cx: OpContext, tensors, dim=0, *, out=None):
    rep = repeated(cx, tensors)
    if rep is not None:
        elem, n = rep
        dims = list(elem.shape.dims)
        dims.insert(cx.norm_dim(dim, len(dims) + 1), n)
        return cx.tensor(dims, like=elem)
    d = cx.const_int(dim)
    if _same_unknown(tensors) and d is not None:
        return joined(cx, tensors.items, d, lambda parts: stack(cx, TupleV(tuple(parts)), dim))
    ts = _tensors(cx, tensors)
    if not ts:
        cx.fail(f"{cx.opname} expects a non-empty list of tensors", "SH107")
    first = ts[0]
    d = cx.norm_dim(dim, first.shape.rank + 1)
    for i, t in enumerate(ts[1:], 1):
        if t.shape.rank != first.shape.rank:
            cx.fail(f"{cx.opname} expects each tensor to be equal size, but tensor 0 is {first.shape} and "
                    f"tensor {i} is {t.shape}", "SH102")
        for k, (a, b) in enumerate(zip(first.shape.dims, t.shape.dims)):
            cx.require(eq(a, b), lambda: f"{cx.opname} expects each tensor to be equal size, but tensor 0 is "
                       f"{first.shape} and tensor {i} is {t.shape}", "SH101")
    dims = [_best([t.shape.dims[k] for t in ts]) for k in range(first.shape.rank)]
    dims.insert(d, Expr.const(len(ts)))
    return cx.tensor(dims, dtype=result_dtype(*ts))


def _atleast(cx: OpContext, t: TensorV, n: int) -> TensorV:
    dims = t.shape.dims
    if len(dims) >= n:
        return t
    if n == 2:
        dims = (Expr.const(1),) * (2 - len(dims)) + dims
    elif n == 3:  # atleast_3d: [] -> [1,1,1], [N] -> [1,N,1], [M,N] -> [M,N,1]
        dims = {0: (1, 1, 1), 1: (1, dims[0] if dims else 1, 1), 2: tuple(dims) + (1,)}[len(dims)]
    else:
        dims = (Expr.const(1),)
    return cx.tensor(Shape.of(dims), dtype=t.dtype)


@op("torch.hstack")
def hstack(cx: OpContext, tensors, *, out=None):
    ts = [_atleast(cx, t, 1) for t in _tensors(cx, tensors)]
    if not ts:
        cx.fail(f"{cx.opname} expects a non-empty list of tensors", "SH107")
    return cat(cx, TupleV(tuple(ts)), 0 if ts[0].shape.rank == 1 else 1)


@op("torch.vstack", "torch.row_stack")
def vstack(cx: OpContext, tensors, *, out=None):
    return cat(cx, TupleV(tuple(_atleast(cx, t, 2) for t in _tensors(cx, tensors))), 0)


@op("torch.dstack")
def dstack(cx: OpContext, tensors, *, out=None):
    return cat(cx, TupleV(tuple(_atleast(cx, t, 3) for t in _tensors(cx, tensors))), 2)


# ---- splitting --------------------------------------------------------------------------

def _pieces(cx: OpContext, x: TensorV, d: int, sizes: list) -> TupleV:
    """Consecutive slices of dimension d with the given sizes (views sharing x's strides)."""
    st = strides_of(x)
    out = []
    for s in sizes:
        dims = list(x.shape.dims)
        dims[d] = s
        out.append(view_result(cx, dims, x, st, f"split on line {cx.span.line}" if cx.span else "split"))
    return TupleV(tuple(out))


def _unknown_count(cx: OpContext, x: TensorV, d: int, size) -> ListV:
    dims = list(x.shape.dims)
    dims[d] = size if size is not None else cx.fresh("piece")
    return ListV(None, cx.tensor(dims, like=x), whole=None if size is not None else (dims[d], x.shape.dims[d]))


def _split_even(cx: OpContext, x: TensorV, d: int, s: Expr) -> Value:
    size = x.shape.dims[d]
    if s.value is not None and s.value < 0:
        cx.fail(f"{cx.opname}: split_size must be non-negative, got {s}", "SH107")
    if s.value == 0:
        cx.require(eq(size, 0), lambda: f"{cx.opname}: split_size 0 needs an empty dimension {d}, but its size is {size}",
                   "SH107")
        return _pieces(cx, x, d, [size])
    if size.value is not None and s.value is not None:
        return _pieces_of(cx, x, d, size.value, s.value)
    if size.value is None and s.value is not None and s.value > 0:
        v = cx.pinned(size)  # `qkv.split(64)` of `3*dim` where the facts say dim == 64
        if v is not None:
            return _pieces_of(cx, x, d, v, s.value)
    q = size // s
    if q.value is not None and q * s == size:
        return _pieces(cx, x, d, [s] * q.value)
    if s == size or cx.entails(eq(s, size)):
        return _pieces(cx, x, d, [size])
    if size.value is not None and s.value is None:
        v = cx.pinned(s)  # `qkv.split(C, dim=2)` where a Linear already fixed C
        if v is not None and v > 0:
            return _split_even(cx, x, d, Expr.const(v))
    if s.value is None:
        # `qkv.split(C)` of `3*n_embd` where the facts say C == n_embd (a Linear(n_embd) read
        # the input whose last axis is C): a few equal pieces, as qkv/kv/gate layouts make them
        for k in (2, 3, 4):
            if cx.entails(eq(size, s * k)):
                return _pieces(cx, x, d, [s] * k)
    return _unknown_count(cx, x, d, None)


def _pieces_of(cx: OpContext, x: TensorV, d: int, total: int, s: int) -> TupleV:
    """Pieces of `s` along d of size `total`, the last one shorter when `s` does not divide it."""
    n = max(1, -(-total // s))
    return _pieces(cx, x, d, [Expr.const(s)] * (n - 1) + [Expr.const(total - s * (n - 1))])


@op("torch.split", "Tensor.split", "Tensor.split_with_sizes", "torch.split_with_sizes")
def split(cx: OpContext, tensor, split_size_or_sections, dim=0):
    x = tensor
    if isinstance(x, TensorV) and x.shape.rank is None and cx.const_int(dim) is not None:
        return axiswise(cx, x, [cx.const_int(dim)], lambda t: split(cx, t, split_size_or_sections, dim))
    if not isinstance(x, TensorV) or x.shape.rank is None:
        raise NotApplicable("input unknown")
    if x.shape.rank == 0:
        cx.fail(f"{cx.opname} cannot split a 0-dim tensor", "SH102")
    d = cx.norm_dim(dim, x.shape.rank)
    size = x.shape.dims[d]
    one = cx.int_of(split_size_or_sections)
    if one is not None:
        return _split_even(cx, x, d, one)
    secs = cx.ints_of(split_size_or_sections)
    if secs is None:
        raise NotApplicable("sections unknown")
    for s in secs:
        if s.value is not None and s.value < 0:
            cx.fail(f"{cx.opname}: split sizes must be non-negative, got {shape_str(secs)}", "SH107")
    total = sum(secs, Expr.const(0))
    cx.require(eq(total, size), lambda: f"{cx.opname}: split sizes {shape_str(secs)} add up to {total}, but dimension {d} "
               f"of {cx.label(x)} {x.shape} has size {size}", "SH101")
    return _pieces(cx, x, d, secs)


@op("torch.chunk", "Tensor.chunk")
def chunk(cx: OpContext, input, chunks, dim=0):
    x = input
    if isinstance(x, TensorV) and x.shape.rank is None and cx.const_int(dim) is not None:
        return axiswise(cx, x, [cx.const_int(dim)], lambda t: chunk(cx, t, chunks, dim))
    if not isinstance(x, TensorV) or x.shape.rank is None:
        raise NotApplicable("input unknown")
    if x.shape.rank == 0:
        cx.fail(f"{cx.opname} expects at least a 1-dimensional tensor", "SH102")
    n = cx.int_of(chunks)
    if n is None:
        raise NotApplicable("chunks unknown")
    if n.value is not None and n.value <= 0:
        cx.fail(f"{cx.opname}: chunks must be greater than 0, got {n}", "SH107")
    d = cx.norm_dim(dim, x.shape.rank)
    size = x.shape.dims[d]
    if size.value == 0 and n.value is not None:
        return _pieces(cx, x, d, [size] * n.value)
    s = (size + n - 1) // n
    if n.value is not None and (s * n == size or cx.entails(eq(size % n, 0))):
        return _pieces(cx, x, d, [size // n] * n.value)
    if n.value is not None and size.value is None and cx.entails(lt((n - 1) * s, size)):
        # exactly n pieces of ceil(size/n), the last one shorter (`a, b = x.chunk(2)` with size >= 2)
        return _pieces(cx, x, d, [s] * (n.value - 1) + [size - (n - 1) * s])
    return if_counted(_split_even(cx, x, d, s), n.value, lambda k: _pieces(cx, x, d, [s] * (k - 1) + [size - (k - 1) * s]))


@op("torch.unbind", "Tensor.unbind")
def unbind(cx: OpContext, input, dim=0):
    x = input
    if not isinstance(x, TensorV) or x.shape.rank is None:
        raise NotApplicable("input unknown")
    if x.shape.rank == 0:
        cx.fail(f"{cx.opname}: a 0-dim tensor cannot be unbound", "SH102")
    d = cx.norm_dim(dim, x.shape.rank)
    dims = list(x.shape.dims)
    n = dims.pop(d)
    elem = view_result(cx, dims, x, _drop(strides_of(x), d))
    if n.value is None:
        return ListV(None, elem)
    return TupleV(tuple(view_result(cx, dims, x, _drop(strides_of(x), d)) for _ in range(n.value)))


def _drop(st, d):
    return None if st is None else tuple(s for i, s in enumerate(st) if i != d)


@op("torch.tensor_split", "Tensor.tensor_split")
def tensor_split(cx: OpContext, input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    x = input
    if not isinstance(x, TensorV) or x.shape.rank is None:
        raise NotApplicable("input unknown")
    if x.shape.rank == 0:
        cx.fail(f"{cx.opname} expects at least a 1-dimensional tensor", "SH102")
    spec = next(v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections, 1) if v is not None)
    if isinstance(spec, TensorV):
        raise NotApplicable("tensor indices")
    d = cx.norm_dim(dim, x.shape.rank)
    size = x.shape.dims[d]
    n = cx.int_of(spec)
    if n is not None:
        if n.value is None:
            raise NotApplicable("sections unknown")
        if n.value <= 0:
            cx.fail(f"{cx.opname}: number of sections must be larger than 0, got {n}", "SH107")
        q, r = size // n, size % n
        if r.value is None:
            raise NotApplicable("symbolic remainder")
        return _pieces(cx, x, d, [q + 1] * r.value + [q] * (n.value - r.value))
    idx = cx.ints_of(spec)
    if idx is None:
        raise NotApplicable("indices unknown")
    sizes, prev = [], Expr.const(0)
    for b in idx + [size]:
        b = _clip(size, b)
        if b.value is not None and prev.value is not None:
            sizes.append(Expr.const(max(0, b.value - prev.value)))
        elif cx.entails(ge(b, prev)):
            sizes.append(b - prev)
        else:
            raise NotApplicable("symbolic indices")
        prev = b  # each piece is x[idx[i-1]:idx[i]], so a smaller index gives an empty piece
    return _pieces(cx, x, d, sizes)


def _clip(size: Expr, b: Expr) -> Expr:
    if b.value is not None and b.value < 0:
        b = size + b
        if b.value is not None and b.value < 0:
            return Expr.const(0)
    if b.value is not None and size.value is not None:
        return Expr.const(min(b.value, size.value))
    return emin(b, size)


@op("torch.meshgrid")
def meshgrid(cx: OpContext, *tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (TupleV, ListV)):
        ts = _tensors(cx, tensors[0])
    else:
        ts = list(tensors)
        if not all(isinstance(t, TensorV) and t.shape.rank is not None for t in ts):
            raise NotApplicable("operands unknown")
    if not ts:
        cx.fail(f"{cx.opname} expects a non-empty list of tensors", "SH107")
    for t in ts:
        if t.shape.rank > 1:
            cx.fail(f"{cx.opname} expects 0D or 1D tensors, got {t.shape}", "SH102")
    dims = [t.shape.dims[0] if t.shape.dims else Expr.const(1) for t in ts]
    mode = cx.str_of(indexing) or "ij"
    if mode == "xy" and len(dims) >= 2:
        dims[0], dims[1] = dims[1], dims[0]
    return TupleV(tuple(cx.tensor(dims, like=t) for t in ts))


# ---- broadcasting a list, atleast_Nd, direction splits, block and product constructions ----------

def _varargs(cx: OpContext, tensors: tuple) -> tuple[list, bool]:
    """(tensors, returned as a tuple?) for f(t), f(t1, t2, ...) and f([t1, t2])."""
    if len(tensors) == 1 and isinstance(tensors[0], (TupleV, ListV)):
        return _tensors(cx, tensors[0]), True
    if not all(isinstance(t, TensorV) and t.shape.rank is not None for t in tensors):
        raise NotApplicable("an operand is unknown")
    return list(tensors), len(tensors) != 1


@op("torch.broadcast_tensors")
def broadcast_tensors(cx: OpContext, *tensors):
    ts, _ = _varargs(cx, tensors)
    shape = broadcast_shapes(cx, *[t.shape for t in ts])
    return TupleV(tuple(cx.tensor(shape, like=t) for t in ts))


def _atleast_rule(n: int):
    def rule(cx: OpContext, *tensors):
        ts, many = _varargs(cx, tensors)
        out = tuple(cx.tensor(_atleast(cx, t, n).shape, like=t) if t.shape.rank < n else t for t in ts)
        return TupleV(out) if many else out[0]
    rule.__name__ = f"atleast_{n}d"
    return rule


for _n in (1, 2, 3):
    op(f"torch.atleast_{_n}d")(_atleast_rule(_n))


def _direction_split(name: str, min_rank: int, dim_of):
    def rule(cx: OpContext, input, indices_or_sections):
        x = input
        if not isinstance(x, TensorV) or x.shape.rank is None:
            raise NotApplicable("input unknown")
        r = x.shape.rank
        if r < min_rank:
            cx.fail(f"{cx.opname} requires a tensor with at least {min_rank} dimension{'s' * (min_rank > 1)}, but "
                    f"{cx.label(x)} is {r}D {x.shape}", "SH102")
        d = dim_of(r)
        n = cx.int_of(indices_or_sections)
        if n is not None:
            size = x.shape.dims[d]
            if n.value is not None and n.value <= 0:
                cx.fail(f"{cx.opname}: the number of sections must be larger than 0, got {n}", "SH107")
            cx.require(divides(n, size), lambda: f"{cx.opname} attempted to split along dimension {d}, but the size of the "
                       f"dimension {size} is not divisible by the split_size {n}", "SH107")
            if n.value is not None:  # equal pieces, also for a symbolic size known to be divisible
                return _pieces(cx, x, d, [size // n] * n.value)
        return tensor_split(cx, x, indices_or_sections, d)
    rule.__name__ = name
    return rule


op("torch.hsplit", "Tensor.hsplit")(_direction_split("hsplit", 1, lambda r: 0 if r == 1 else 1))
op("torch.vsplit", "Tensor.vsplit")(_direction_split("vsplit", 2, lambda r: 0))
op("torch.dsplit", "Tensor.dsplit")(_direction_split("dsplit", 3, lambda r: 2))


@op("torch.column_stack")
def column_stack(cx: OpContext, tensors, *, out=None):
    ts = _tensors(cx, tensors)
    if not ts:
        cx.fail(f"{cx.opname} expects a non-empty list of tensors", "SH107")
    one = Expr.const(1)
    cols = [cx.tensor(Shape(((t.shape.dims[0] if t.shape.rank else one), one)), like=t) if t.shape.rank <= 1 else t
            for t in ts]
    return hstack(cx, TupleV(tuple(cols)))


@op("torch.block_diag")
def block_diag(cx: OpContext, *tensors):
    ts, _ = _varargs(cx, tensors)
    rows, cols = Expr.const(0), Expr.const(0)
    for i, t in enumerate(ts):
        if t.shape.rank > 2:
            cx.fail(f"{cx.opname}: input tensors must have 2 or fewer dimensions, but input {i} is "
                    f"{t.shape.rank}D {t.shape}", "SH102")
        d = t.shape.dims
        r, c = (d[0], d[1]) if len(d) == 2 else (Expr.const(1), d[0] if d else Expr.const(1))
        rows, cols = rows + r, cols + c
    return cx.tensor([rows, cols], dtype=result_dtype(*ts))


def _vectors(cx: OpContext, ts: list) -> None:
    for i, t in enumerate(ts):
        if t.shape.rank != 1:
            cx.fail(f"{cx.opname} expects 1D vectors, but input {i} is {t.shape.rank}D {t.shape}", "SH102")


@op("torch.cartesian_prod")
def cartesian_prod(cx: OpContext, *tensors):
    ts, _ = _varargs(cx, tensors)
    _vectors(cx, ts)
    if len(ts) == 1:
        return ts[0]
    n = Expr.const(1)
    for t in ts:
        n = n * t.shape.dims[0]
    return cx.tensor([n, Expr.const(len(ts))], dtype=result_dtype(*ts))


@op("torch.combinations")
def combinations(cx: OpContext, input, r=2, with_replacement=False):
    x = input
    if not isinstance(x, TensorV) or x.shape.rank is None:
        raise NotApplicable("input unknown")
    _vectors(cx, [x])
    k = cx.const_int(r)
    rep = cx.bool_of(with_replacement)
    if k is None or rep is None:
        raise NotApplicable("r unknown")
    if k < 0:
        cx.fail(f"{cx.opname}: r must be non-negative, got {k}", "SH107")
    if k == 0:
        return cx.tensor([Expr.const(0)], like=x)
    n = x.shape.dims[0]
    if n.value is None:
        if k == 1:
            return cx.tensor([n, Expr.const(1)], like=x)
        if k == 2:  # n(n-1)/2 or n(n+1)/2: an exact integer division
            return cx.tensor([(n * (n + 1) if rep else n * (n - 1)) // 2, Expr.const(2)], like=x)
        raise NotApplicable("symbolic length")
    count = math.comb(n.value + k - 1, k) if rep else math.comb(n.value, k)
    return cx.tensor([Expr.const(count), Expr.const(k)], like=x)
