"""Linear algebra: diagonals and traces, torch.linalg decompositions/solvers, vector/matrix norms, cross, kron, inner.

Batched linalg functions take `(*, m, n)` inputs; the "square" ones require m == n as PyTorch's
`squareCheckInputs` does. Decompositions return tuples in PyTorch's order (U, S, Vh / Q, R / ...).
"""
from __future__ import annotations

from ...shapes.expr import Expr, emax, emin
from ...shapes.shape import Shape, conj, eq, neg
from ...shapes.values import TensorV, TupleV
from ..arguments import ranked_tensor
from ..common import broadcast_shapes, shape_str
from ..context import NotApplicable, OpContext
from ..registry import op


def _decide(cx: OpContext, pred) -> bool | None:
    if cx.entails(pred):
        return True
    if cx.entails(neg(pred)):
        return False
    return None


def _matrices(cx: OpContext, a: TensorV, what: str = "A") -> tuple:
    if a.shape.rank < 2:
        cx.fail(f"{cx.opname}: {what} must have at least 2 dimensions, but {cx.label(a)} is {a.shape.rank}D "
                f"{a.shape}", "SH102")
    return a.shape.dims[:-2], a.shape.dims[-2], a.shape.dims[-1]


def _square(cx: OpContext, a: TensorV, what: str = "A") -> tuple:
    batch, m, n = _matrices(cx, a, what)
    cx.require(eq(m, n), lambda: f"{cx.opname}: {what} must be batches of square matrices, but they are {m} by {n} "
               "matrices", "SH101")
    return batch, m


def _pair(cx: OpContext, a: Shape, b: Shape, like: TensorV) -> TupleV:
    return TupleV((cx.tensor(a, like=like), cx.tensor(b, like=like)))


# ---- diagonals -------------------------------------------------------------------------------

def diag_len(a: Expr, b: Expr, offset: int) -> Expr:
    """Length of the `offset` diagonal of an a x b matrix (0 when it falls outside)."""
    if offset >= 0:
        return emax(emin(a, b - offset), 0)
    return emax(emin(a + offset, b), 0)


@op("torch.diagonal", "Tensor.diagonal")
def diagonal(cx: OpContext, input, offset=0, dim1=0, dim2=1):
    x = ranked_tensor(input)
    r = x.shape.rank
    if r < 2:
        cx.fail(f"{cx.opname}: diagonal needs a tensor with at least 2 dimensions, but {cx.label(x)} is {r}D "
                f"{x.shape}", "SH102")
    d1, d2 = cx.norm_dim(dim1, r, "dim1"), cx.norm_dim(dim2, r, "dim2")
    if d1 == d2:
        cx.fail(f"{cx.opname}: diagonal dimensions cannot be identical {cx.const_int(dim1)}, {cx.const_int(dim2)}", "SH107")
    k = cx.const_int(offset)
    if k is None:
        raise NotApplicable("symbolic offset")
    dims = x.shape.dims
    rest = [d for i, d in enumerate(dims) if i not in (d1, d2)]
    return cx.tensor(rest + [diag_len(dims[d1], dims[d2], k)], like=x)


@op("torch.linalg.diagonal")
def linalg_diagonal(cx: OpContext, A, *, offset=0, dim1=-2, dim2=-1):
    return diagonal(cx, A, offset, dim1, dim2)


@op("torch.diag", "Tensor.diag")
def diag(cx: OpContext, input, diagonal=0, *, out=None):
    x = ranked_tensor(input)
    k = cx.const_int(diagonal)
    if k is None:
        raise NotApplicable("symbolic diagonal")
    if x.shape.rank == 1:
        n = x.shape.dims[0] + abs(k)
        return cx.tensor([n, n], like=x)
    if x.shape.rank == 2:
        return cx.tensor([diag_len(*x.shape.dims, k)], like=x)
    cx.fail(f"{cx.opname}: diag() supports 1D or 2D tensors, but {cx.label(x)} is {x.shape.rank}D {x.shape}",
            "SH102")


@op("torch.diag_embed", "Tensor.diag_embed")
def diag_embed(cx: OpContext, input, offset=0, dim1=-2, dim2=-1):
    x = ranked_tensor(input)
    r = x.shape.rank + 1
    d1, d2 = cx.norm_dim(dim1, r, "dim1"), cx.norm_dim(dim2, r, "dim2")
    if d1 == d2:
        cx.fail(f"{cx.opname}: diagonal dimensions cannot be identical {cx.const_int(dim1)}, {cx.const_int(dim2)}", "SH107")
    k = cx.const_int(offset)
    if k is None or x.shape.rank == 0:
        raise NotApplicable("symbolic offset or scalar input")
    n = x.shape.dims[-1] + abs(k)
    rest = iter(x.shape.dims[:-1])
    return cx.tensor([n if i in (d1, d2) else next(rest) for i in range(r)], like=x)


@op("torch.trace", "Tensor.trace")
def trace(cx: OpContext, input):
    x = ranked_tensor(input)
    if x.shape.rank != 2:
        cx.fail(f"{cx.opname}: expected a matrix, but {cx.label(x)} is {x.shape.rank}D {x.shape}", "SH102")
    return cx.tensor([], like=x)


# ---- square-matrix functions ------------------------------------------------------------------

@op("torch.linalg.inv", "torch.inverse", "Tensor.inverse", "torch.linalg.cholesky", "torch.cholesky",
    "Tensor.cholesky", "torch.linalg.matrix_exp", "torch.matrix_exp", "Tensor.matrix_exp")
def inv(cx: OpContext, A, *args, **kwargs):
    a = ranked_tensor(A)
    _square(cx, a)
    return cx.tensor(a.shape, like=a)


@op("torch.linalg.det", "torch.det", "Tensor.det", "torch.logdet", "Tensor.logdet")
def det(cx: OpContext, A, *, out=None):
    a = ranked_tensor(A)
    batch, _ = _square(cx, a)
    return cx.tensor(batch, like=a)


@op("torch.linalg.slogdet", "torch.slogdet", "Tensor.slogdet")
def slogdet(cx: OpContext, A, *, out=None):
    a = ranked_tensor(A)
    batch, _ = _square(cx, a)
    return _pair(cx, Shape(batch), Shape(batch), a)


@op("torch.linalg.eigh")
def eigh(cx: OpContext, A, UPLO="L", *, out=None):
    a = ranked_tensor(A)
    batch, n = _square(cx, a)
    return _pair(cx, Shape(batch + (n,)), Shape(batch + (n, n)), a)


@op("torch.linalg.eig")
def eig(cx: OpContext, A, *, out=None):
    a = ranked_tensor(A)
    batch, n = _square(cx, a)
    c = "complex128" if a.dtype == "float64" else "complex64"
    return TupleV((cx.tensor(batch + (n,), dtype=c), cx.tensor(batch + (n, n), dtype=c)))


@op("torch.linalg.eigvals")
def eigvals(cx: OpContext, A, *, out=None):
    a = ranked_tensor(A)
    batch, n = _square(cx, a)
    return cx.tensor(batch + (n,), dtype="complex128" if a.dtype == "float64" else "complex64")


@op("torch.linalg.matrix_power", "torch.matrix_power", "Tensor.matrix_power")
def matrix_power(cx: OpContext, A, n, *, out=None):
    a = ranked_tensor(A)
    _square(cx, a)
    return cx.tensor(a.shape, like=a)


@op("torch.linalg.pinv", "torch.pinverse", "Tensor.pinverse")
def pinv(cx: OpContext, A, *args, **kwargs):
    a = ranked_tensor(A)
    batch, m, n = _matrices(cx, a)
    return cx.tensor(batch + (n, m), like=a)


@op("torch.linalg.matrix_rank")
def matrix_rank(cx: OpContext, A, *args, **kwargs):
    a = ranked_tensor(A)
    batch, _, _ = _matrices(cx, a)
    return cx.tensor(batch, dtype="int64")


@op("torch.linalg.vecdot")
def vecdot(cx: OpContext, x, y, *, dim=-1, out=None):
    a, b = ranked_tensor(x), ranked_tensor(y)
    s = broadcast_shapes(cx, a.shape, b.shape)
    if a.shape.rank == 1 and b.shape.rank == 1:
        return cx.tensor([], like=a)  # PyTorch's 1-D fast path ignores dim
    k = cx.norm_dim(dim, s.rank)
    return cx.tensor(s.dims[:k] + s.dims[k + 1:], like=x)


@op("torch.linalg.eigvalsh")
def eigvalsh(cx: OpContext, A, UPLO="L", *, out=None):
    a = ranked_tensor(A)
    batch, n = _square(cx, a)
    return cx.tensor(batch + (n,), like=a)


@op("torch.linalg.solve")
def solve(cx: OpContext, A, B, *, left=True, out=None):
    a, b = ranked_tensor(A), ranked_tensor(B)
    if cx.bool_of(left) is not True:
        raise NotApplicable("left=False")
    batch, n = _square(cx, a)
    # PyTorch's linalg_solve_is_vector_rhs: B is a (batch of) vector(s) when it is 1D or has A's shape minus
    # its last dimension
    vector = b.shape.rank == 1
    if not vector and b.shape.rank == a.shape.rank - 1:
        same = _decide(cx, _all_eq(a.shape.dims[:-1], b.shape.dims))
        if same is None:
            raise NotApplicable("vector case undecided")
        vector = same
    if b.shape.rank == 0:
        cx.fail(f"{cx.opname}: B must have at least 1 dimension, but {cx.label(b)} is a scalar", "SH102")
    rows = b.shape.dims[-1] if vector else b.shape.dims[-2]
    cols = () if vector else (b.shape.dims[-1],)
    cx.require(eq(rows, n), lambda: f"{cx.opname}: incompatible shapes of A and B for the equation AX = B ({n}x{n} and "
               f"{rows}x{cols[0] if cols else 1})", "SH101")
    bbatch = b.shape.dims[:-1] if vector else b.shape.dims[:-2]
    out = broadcast_shapes(cx, Shape(batch), Shape(bbatch))
    return cx.tensor(out.dims + (n,) + cols, like=a)


def _all_eq(xs, ys):
    return conj(*(eq(x, y) for x, y in zip(xs, ys)))


# ---- decompositions of rectangular matrices ---------------------------------------------------

@op("torch.linalg.svd")
def svd(cx: OpContext, A, full_matrices=True, *, driver=None, out=None):
    a = ranked_tensor(A)
    batch, m, n = _matrices(cx, a)
    k = emin(m, n)
    full = cx.bool_of(full_matrices)
    if full is None:
        raise NotApplicable("full_matrices unknown")
    u = (m, m) if full else (m, k)
    vh = (n, n) if full else (k, n)
    return TupleV((cx.tensor(batch + u, like=a), cx.tensor(batch + (k,), like=a), cx.tensor(batch + vh, like=a)))


@op("torch.svd", "Tensor.svd")
def svd_legacy(cx: OpContext, input, some=True, compute_uv=True, *, out=None):
    a = ranked_tensor(input)
    batch, m, n = _matrices(cx, a)
    k = emin(m, n)
    some_, uv = cx.bool_of(some), cx.bool_of(compute_uv)
    if some_ is None or uv is None:
        raise NotApplicable("some/compute_uv unknown")
    if not uv:  # U and V are zero-filled full matrices
        some_ = False
    u, v = ((m, k), (n, k)) if some_ else ((m, m), (n, n))
    return TupleV((cx.tensor(batch + u, like=a), cx.tensor(batch + (k,), like=a), cx.tensor(batch + v, like=a)))


@op("torch.linalg.svdvals")
def svdvals(cx: OpContext, A, *, driver=None, out=None):
    a = ranked_tensor(A)
    batch, m, n = _matrices(cx, a)
    return cx.tensor(batch + (emin(m, n),), like=a)


@op("torch.linalg.qr")
def qr(cx: OpContext, A, mode="reduced", *, out=None):
    a = ranked_tensor(A)
    batch, m, n = _matrices(cx, a)
    k = emin(m, n)
    md = cx.str_of(mode)
    if md == "reduced":
        return _pair(cx, Shape(batch + (m, k)), Shape(batch + (k, n)), a)
    if md == "complete":
        return _pair(cx, Shape(batch + (m, m)), Shape(batch + (m, n)), a)
    if md == "r":
        return _pair(cx, Shape((Expr.const(0),)), Shape(batch + (k, n)), a)
    if md is None:
        raise NotApplicable("mode unknown")
    cx.fail(f"{cx.opname}: qr received unrecognized mode '{md}' but expected one of 'reduced' (default), 'r', "
            "or 'complete'", "SH107")


# ---- norms ------------------------------------------------------------------------------------

@op("torch.linalg.norm")
def linalg_norm(cx: OpContext, A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    x = ranked_tensor(A)
    if cx.is_none(dim):
        if not cx.is_none(ord):
            if x.shape.rank not in (1, 2):
                cx.fail(f"{cx.opname}: if dim is not specified but ord is, the input must be 1D or 2D, but "
                        f"{cx.label(x)} is {x.shape.rank}D {x.shape}", "SH102")
            if x.shape.rank == 2:
                return matrix_norm(cx, x, ord, (-2, -1), keepdim)
        return vector_norm(cx, x, 2, None, keepdim)
    dims = cx.ints_of(dim)
    if dims is None or any(d.value is None for d in dims):
        raise NotApplicable("dims")
    if len(dims) == 1:
        return vector_norm(cx, x, 2, dim, keepdim)
    if len(dims) == 2:
        return matrix_norm(cx, x, "fro", dim, keepdim)
    cx.fail(f"{cx.opname}: if dim is specified, it must be of length 1 or 2, got {len(dims)}", "SH107")


# ---- products ---------------------------------------------------------------------------------

@op("torch.linalg.cross")
def linalg_cross(cx: OpContext, input, other, *, dim=-1, out=None):
    return _cross(cx, ranked_tensor(input), ranked_tensor(other), dim)


def _cross(cx: OpContext, a: TensorV, b: TensorV, dim) -> TensorV:
    _same_rank(cx, a, b)
    s = broadcast_shapes(cx, a.shape, b.shape)
    k = cx.norm_dim(dim, s.rank)
    ka, kb = k - (s.rank - a.shape.rank), k - (s.rank - b.shape.rank)
    for t, kk in ((a, ka), (b, kb)):
        size = t.shape.dims[kk] if kk >= 0 else Expr.const(1)
        cx.require(eq(size, 3), lambda: f"{cx.opname}: inputs dimension {dim} must have length 3, but {cx.label(t)} "
                   f"{t.shape} has {size}", "SH101")
    return cx.tensor(s, like=a)


def _same_rank(cx: OpContext, a: TensorV, b: TensorV) -> None:
    if a.shape.rank != b.shape.rank:
        cx.fail(f"{cx.opname}: inputs must have the same number of dimensions, but they are {a.shape.rank}D "
                f"{a.shape} and {b.shape.rank}D {b.shape}", "SH102")


@op("torch.cross", "Tensor.cross")
def cross(cx: OpContext, input, other, dim=None, *, out=None):
    a, b = ranked_tensor(input), ranked_tensor(other)
    if cx.is_none(dim):
        # deprecated default: the first dimension of size 3 (of the broadcast shape)
        _same_rank(cx, a, b)
        s = broadcast_shapes(cx, a.shape, b.shape)
        if any(d.value is None for d in s.dims):
            raise NotApplicable("symbolic sizes")
        hits = [i for i, d in enumerate(s.dims) if d.value == 3]
        if not hits:
            cx.fail(f"{cx.opname}: no dimension of size 3 in the input {shape_str(s.dims)}", "SH101")
        dim = hits[0]
    return _cross(cx, a, b, dim)


@op("torch.kron", "Tensor.kron")
def kron(cx: OpContext, input, other, *, out=None):
    a, b = ranked_tensor(input), ranked_tensor(other)
    r = max(a.shape.rank, b.shape.rank)
    one = Expr.const(1)
    da = (one,) * (r - a.shape.rank) + a.shape.dims
    db = (one,) * (r - b.shape.rank) + b.shape.dims
    return cx.tensor([x * y for x, y in zip(da, db)], like=a)


@op("torch.inner", "Tensor.inner")
def inner(cx: OpContext, input, other, *, out=None):
    a, b = ranked_tensor(input), ranked_tensor(other)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return cx.tensor(broadcast_shapes(cx, a.shape, b.shape), like=a)
    cx.require(eq(a.shape.dims[-1], b.shape.dims[-1]),
               lambda: f"{cx.opname}: the last dimension must match on both inputs, but got shapes {a.shape} and {b.shape}",
               "SH101")
    return cx.tensor(a.shape.dims[:-1] + b.shape.dims[:-1], like=a)


def _reduce(cx: OpContext, x: TensorV, dims, keepdim) -> TensorV:
    r = x.shape.rank
    ks = sorted({cx.norm_dim(d, r) for d in dims})
    keep = cx.bool_of(keepdim)
    out = [Expr.const(1) if i in ks else d for i, d in enumerate(x.shape.dims) if keep or i not in ks]
    return cx.tensor(out, like=x)


@op("torch.linalg.matrix_norm")
def matrix_norm(cx: OpContext, A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    x = ranked_tensor(A)
    if x.shape.rank < 2:
        cx.fail(f"{cx.opname}: the input must have at least 2 dimensions, got {x.shape.rank}D", "SH102")
    dims = cx.ints_of(dim)
    if dims is None or len(dims) != 2 or any(d.value is None for d in dims):
        raise NotApplicable("dims")
    return _reduce(cx, x, [d.value for d in dims], keepdim)


@op("torch.linalg.vector_norm")
def vector_norm(cx: OpContext, x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    t = ranked_tensor(x)
    if cx.is_none(dim):
        return cx.tensor([Expr.const(1)] * t.shape.rank if cx.bool_of(keepdim) else [], like=t)
    dims = cx.ints_of(dim)
    if dims is None or any(d.value is None for d in dims):
        raise NotApplicable("dims")
    return _reduce(cx, t, [d.value for d in dims], keepdim)
