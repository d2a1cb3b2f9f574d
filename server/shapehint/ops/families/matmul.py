"""Matrix products: matmul/@, mm, bmm, baddbmm/addmm/addmv/addbmm, mv, dot, outer, einsum, tensordot.

matmul follows torch.matmul: 1-D operands get a dimension prepended (left) or appended
(right) that is removed again, and batch dimensions broadcast.
"""
from __future__ import annotations

from ...shapes.expr import Expr
from ...shapes.shape import Shape, eq
from ...shapes.values import ListV, TensorV, TupleV
from ..common import apart, broadcast_shapes, result_dtype
from ..context import NotApplicable, OpContext
from ..registry import op


def _known(*ts) -> None:
    for t in ts:
        if not isinstance(t, TensorV) or t.shape.rank is None:
            raise NotApplicable("operand unknown")


def _same_dtype(cx: OpContext, a: TensorV, b: TensorV) -> None:
    if a.dtype and b.dtype and a.dtype != b.dtype:
        cx.fail(f"{cx.opname}: both operands must have the same dtype, got {a.dtype} and {b.dtype}", "SH107")


def _inner(cx: OpContext, a: TensorV, b: TensorV, ka: Expr, kb: Expr, where_b: str) -> None:
    cx.require(eq(ka, kb), lambda: f"{cx.opname}: {cx.label(a, 'the left operand')} {a.shape} has {ka} columns but "
               f"{cx.label(b, 'the right operand')} {b.shape} has {kb} in its {where_b} dimension", "SH101")


def _pinned(m: Expr, ka: Expr, kb: Expr) -> Expr:
    """The product's rows `m` where they are the left operand's contraction `ka` (a square
    matrix; or its columns and the right one's, swapped): `ka` is now required to equal `kb`, so
    a size a broadcast left as `max(N, A)` (`attn + bias`, each side N or A) is `kb` (`attn @ v`:
    v's N) on every path that goes on."""
    if m == ka and _broadcast(ka) and not _broadcast(kb):
        return kb
    return m


def _broadcast(e: Expr) -> bool:
    return len(e.terms) == 1 and all(c == 1 and len(mono) == 1 and mono[0].kind == "max" for mono, c in e.terms.items())


def matmul_shape(cx: OpContext, a: TensorV, b: TensorV) -> Shape:
    ra, rb = a.shape.rank, b.shape.rank
    if ra is None or rb is None:
        return _matmul_unknown(cx, a, b)
    if ra == 0 or rb == 0:
        cx.fail(f"{cx.opname}: both arguments to matmul need to be at least 1D, got {a.shape} and {b.shape}", "SH102")
    A, Bd = a.shape.dims, b.shape.dims
    if ra == 1 and rb == 1:
        _inner(cx, a, b, A[0], Bd[0], "only")
        return Shape(())
    where_b = "first" if rb <= 2 else "second-to-last"
    kb = Bd[0] if rb == 1 else Bd[-2]
    _inner(cx, a, b, A[-1], kb, where_b)
    left = A[:-1] if ra >= 2 else ()
    right = (_pinned(Bd[-1], kb, A[-1]),) if rb >= 2 else ()
    batch_a = A[:-2] if ra > 2 else ()
    batch_b = Bd[:-2] if rb > 2 else ()
    batch = broadcast_shapes(cx, Shape(batch_a), Shape(batch_b)).dims
    m = (_pinned(left[-1], A[-1], kb),) if ra >= 2 else ()
    return Shape(tuple(batch) + tuple(m) + tuple(right))


def _matmul_unknown(cx: OpContext, a: TensorV, b: TensorV) -> Shape:
    """x @ W with x of unknown rank and W 2-D (the Linear pattern): [*, k] @ [k, n] -> [*, n]."""
    if a.shape.rank is None and b.shape.rank == 2:
        k = cx.dim(a, -1)
        s = a.shape
        if s.rank is not None:
            return matmul_shape(cx, a, b)
        _inner(cx, a, b, k, b.shape.dims[0], "first")
        s = apart(cx, s, back=(1,))  # the last axis may be a named leading one
        return Shape(s.dims, s.star, s.suffix[:-1] + (b.shape.dims[1],))
    if a.shape.rank is None and b.shape.rank is None:
        try:
            return _batched_alike(cx, a, b)
        except NotApplicable:
            if not _matrices(b.shape):
                raise
            # `q @ k.transpose(-1, -2)` of inputs of unknown ranks: as below, whatever its rank
            return Shape((), cx.fresh_star(None), b.shape.suffix[-1:])
    if a.shape.rank is None and b.shape.rank >= 3:
        # batched matrices (attention's `q @ k.transpose(2, 3)`): a vector, a matrix or a batch
        # of them on the left, the product ends in the right one's columns, whatever else it has
        return Shape((), cx.fresh_star(None), b.shape.dims[-1:])
    raise NotApplicable("rank unknown")


def _matrices(s: Shape) -> bool:
    """Whether a shape of unknown rank names its last two axes (so it has two or more; the axes
    named before its segment may be those same axes): a matmul with it on the right ends in its
    last axis, whatever the left operand's rank (1-D included)."""
    return len(s.suffix) >= 2


def _batched_alike(cx: OpContext, a: TensorV, b: TensorV) -> Shape:
    """`[*s, m, k] @ [*s, k, n]` -> `[*s, m, n]`: matrices batched over the same unknown axes
    (`q @ k.transpose(-1, -2)` of one input's heads). Each must have two known trailing axes (a
    vector is multiplied otherwise) and as many axes around the segment as the other."""
    sa, sb = a.shape, b.shape
    if sa.star != sb.star or len(sa.suffix) < 2 or len(sa.suffix) != len(sb.suffix) or len(sa.dims) != len(sb.dims) \
            or sa.dims and cx.sides_shared(sa.star):
        raise NotApplicable("batches over unknown axes that may differ")
    _inner(cx, a, b, sa.suffix[-1], sb.suffix[-2], "second-to-last")
    pre = broadcast_shapes(cx, Shape(sa.dims), Shape(sb.dims)).dims
    mid = broadcast_shapes(cx, Shape(sa.suffix[:-2]), Shape(sb.suffix[:-2])).dims
    return Shape(pre, sa.star, mid + (_pinned(sa.suffix[-2], sa.suffix[-1], sb.suffix[-2]),
                                     _pinned(sb.suffix[-1], sb.suffix[-2], sa.suffix[-1])))


@op("torch.matmul", "Tensor.matmul", "Tensor.__matmul__", "torch.linalg.matmul")
def matmul(cx: OpContext, input, other, *, out=None):
    if not isinstance(input, TensorV) or not isinstance(other, TensorV):
        raise NotApplicable("operand unknown")
    if input.shape.rank is not None and other.shape.rank is not None:
        _same_dtype(cx, input, other)
    return cx.tensor(matmul_shape(cx, input, other), dtype=result_dtype(input, other))


@op("Tensor.__rmatmul__")
def rmatmul(cx: OpContext, self, other):
    return matmul(cx, other, self)


def _two_d(cx: OpContext, a, b, ranks=(2, 2)):
    _known(a, b)
    A = cx.dims(a, ranks[0], "first matrix")
    Bd = cx.dims(b, ranks[1], "second matrix")
    _same_dtype(cx, a, b)
    return A, Bd


@op("torch.mm", "Tensor.mm")
def mm(cx: OpContext, input, mat2, *, out=None):
    A, Bd = _two_d(cx, input, mat2)
    _inner(cx, input, mat2, A[1], Bd[0], "first")
    return cx.tensor((A[0], Bd[1]), like=input)


@op("torch.bmm", "Tensor.bmm")
def bmm(cx: OpContext, input, mat2, *, out=None):
    A, Bd = _two_d(cx, input, mat2, (3, 3))
    cx.require(eq(A[0], Bd[0]), lambda: f"{cx.opname}: batch sizes differ: {cx.label(input, 'the first operand')} "
               f"{input.shape} vs {cx.label(mat2, 'the second operand')} {mat2.shape}", "SH101")
    _inner(cx, input, mat2, A[2], Bd[1], "second")
    return cx.tensor((A[0], A[1], Bd[2]), like=input)


@op("torch.mv", "Tensor.mv")
def mv(cx: OpContext, input, vec, *, out=None):
    A, v = _two_d(cx, input, vec, (2, 1))
    _inner(cx, input, vec, A[1], v[0], "only")
    return cx.tensor((A[0],), like=input)


@op("torch.dot", "Tensor.dot", "torch.inner_1d", "torch.vdot", "Tensor.vdot")
def dot(cx: OpContext, input, tensor, *, out=None):
    a, b = _two_d(cx, input, tensor, (1, 1))
    cx.require(eq(a[0], b[0]), lambda: f"{cx.opname}: vectors of different lengths ({a[0]} and {b[0]})", "SH101")
    return cx.tensor((), like=input)


@op("torch.outer", "Tensor.outer", "torch.ger", "Tensor.ger")
def outer(cx: OpContext, input, vec2, *, out=None):
    # a broadcast product (input[:, None] * vec2), so its operands promote: no dtype to match
    _known(input, vec2)
    a, b = cx.dims(input, 1, "first vector"), cx.dims(vec2, 1, "second vector")
    return cx.tensor((a[0], b[0]), dtype=result_dtype(input, vec2))


def _add_to(cx: OpContext, inp, out: Shape, like) -> TensorV:
    """addmm-style ops: `input` must broadcast to the product's shape, which is the result."""
    if not isinstance(inp, TensorV) or inp.shape.rank is None:
        raise NotApplicable("input unknown")
    if inp.shape.rank > out.rank:
        cx.fail(f"{cx.opname}: input {inp.shape} does not broadcast to the product's shape {out}", "SH106")
    _same_dtype(cx, inp, like)
    for i in range(1, inp.shape.rank + 1):
        d = inp.shape.dims[-i]
        if d.value != 1:
            cx.require(eq(d, out.dims[-i]), lambda: f"{cx.opname}: input {inp.shape} does not broadcast to the product's "
                       f"shape {out}", "SH106")
    return cx.tensor(out, dtype=like.dtype)


@op("torch.addmm", "Tensor.addmm")
def addmm(cx: OpContext, input, mat1, mat2, *, beta=1, alpha=1, out=None):
    return _add_to(cx, input, mm(cx, mat1, mat2).shape, mat1)


@op("torch.baddbmm", "Tensor.baddbmm")
def baddbmm(cx: OpContext, input, batch1, batch2, *, beta=1, alpha=1, out=None):
    return _add_to(cx, input, bmm(cx, batch1, batch2).shape, batch1)


@op("torch.addbmm", "Tensor.addbmm")
def addbmm(cx: OpContext, input, batch1, batch2, *, beta=1, alpha=1, out=None):
    s = bmm(cx, batch1, batch2).shape
    return _add_to(cx, input, Shape(s.dims[1:]), batch1)


@op("torch.addmv", "Tensor.addmv")
def addmv(cx: OpContext, input, mat, vec, *, beta=1, alpha=1, out=None):
    return _add_to(cx, input, mv(cx, mat, vec).shape, mat)


# ---- einsum ----------------------------------------------------------------------------------

def _parse_term(cx: OpContext, term: str) -> list:
    out, i = [], 0
    while i < len(term):
        if term.startswith("...", i):
            if "..." in out:
                cx.fail(f"{cx.opname}: more than one ellipsis in '{term}'", "SH107")
            out.append("...")
            i += 3
        elif term[i].isalpha():
            out.append(term[i])
            i += 1
        else:
            cx.fail(f"{cx.opname}: invalid subscript '{term[i]}' in the equation", "SH107")
    return out


@op("torch.einsum")
def einsum(cx: OpContext, equation, *operands):
    eqn = cx.str_of(equation)
    if eqn is None:
        raise NotApplicable("equation unknown")
    if len(operands) == 1 and isinstance(operands[0], (TupleV, ListV)):
        operands = operands[0].items or ()
    _known(*operands)
    eqn = eqn.replace(" ", "")
    lhs, arrow, rhs = eqn.partition("->")
    terms = [_parse_term(cx, t) for t in lhs.split(",")]
    if len(terms) != len(operands):
        cx.fail(f"{cx.opname}: the equation has {len(terms)} operands but {len(operands)} tensors were given", "SH107")
    sizes: dict = {}
    ell = Shape(())
    for k, (term, t) in enumerate(zip(terms, operands)):
        dims = t.shape.dims
        n = len([c for c in term if c != "..."])
        if "..." not in term and n != len(dims):
            cx.fail(f"{cx.opname}: '{''.join(term)}' names {n} dimensions but operand {k} {t.shape} has "
                    f"{len(dims)}", "SH102")
        if "..." in term and n > len(dims):
            cx.fail(f"{cx.opname}: '{''.join(term)}' names {n} dimensions but operand {k} {t.shape} has only "
                    f"{len(dims)}", "SH102")
        ne_ = len(dims) - n
        pos = 0
        for c in term:
            if c == "...":
                ell = broadcast_shapes(cx, ell, Shape(dims[pos:pos + ne_]))
                pos += ne_
                continue
            d = dims[pos]
            pos += 1
            if c in sizes:
                prev = sizes[c]
                if prev.value == 1 or d.value == 1:
                    sizes[c] = d if prev.value == 1 else prev
                else:
                    cx.require(eq(prev, d), lambda: f"{cx.opname}: subscript '{c}' has size {d} in operand {k} "
                               f"{t.shape} but {prev} elsewhere", "SH101")
            else:
                sizes[c] = d
    if arrow:
        out = _parse_term(cx, rhs)
        for c in out:
            if c != "..." and c not in sizes:
                cx.fail(f"{cx.opname}: output subscript '{c}' does not appear in the inputs", "SH107")
            if c != "..." and out.count(c) > 1:
                cx.fail(f"{cx.opname}: output subscript '{c}' appears more than once", "SH107")
    else:
        counts: dict = {}
        for term in terms:
            for c in term:
                counts[c] = counts.get(c, 0) + 1
        out = (["..."] if any("..." in t for t in terms) else []) + \
            sorted(c for c, n in counts.items() if n == 1 and c != "...")
    dims = []
    for c in out:
        dims.extend(ell.dims if c == "..." else [sizes[c]])
    return cx.tensor(Shape(tuple(dims)), dtype=result_dtype(*operands))


@op("torch.tensordot")
def tensordot(cx: OpContext, a, b, dims=2, out=None):
    _known(a, b)
    A, Bd = a.shape.dims, b.shape.dims
    n = cx.const_int(dims)
    if n is not None:
        if n < 0:
            cx.fail(f"{cx.opname}: dims must be non-negative, got {n}", "SH107")
        if n > len(A) or n > len(Bd):
            cx.fail(f"{cx.opname}: cannot contract {n} dims of {a.shape} and {b.shape}", "SH102")
        da, db = list(range(len(A) - n, len(A))), list(range(n))
    else:
        if not isinstance(dims, (TupleV, ListV)) or dims.items is None or len(dims.items) != 2:
            raise NotApplicable("dims unknown")
        da_, db_ = cx.ints_of(dims.items[0]), cx.ints_of(dims.items[1])
        if da_ is None or db_ is None or any(x.value is None for x in da_ + db_):
            raise NotApplicable("dims unknown")
        if len(da_) != len(db_):
            cx.fail(f"{cx.opname}: both dim lists must have the same length", "SH107")
        da = [cx.norm_dim(x.value, len(A)) for x in da_]
        db = [cx.norm_dim(x.value, len(Bd)) for x in db_]
    for i, j in zip(da, db):
        cx.require(eq(A[i], Bd[j]), lambda: f"{cx.opname}: contracted dimensions differ: {A[i]} (dim {i} of {a.shape}) vs "
                   f"{Bd[j]} (dim {j} of {b.shape})", "SH101")
    return cx.tensor(Shape(tuple(d for i, d in enumerate(A) if i not in da) +
                         tuple(d for j, d in enumerate(Bd) if j not in db)), dtype=result_dtype(a, b))

