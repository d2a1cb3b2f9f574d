"""gather/scatter family, index_add/index_copy/index_fill, take_along_dim, and the data-dependent
ops nonzero/argwhere/unique/where(cond)/bincount, whose sizes are fresh symbols bounded by the
input's number of elements.
"""
from __future__ import annotations

from ...shapes.expr import Expr, product
from ...shapes.shape import Shape, conj, eq, ge, le
from ...shapes.values import NoneV, TensorV, TupleV
from ..common import broadcast_shapes
from ..context import NotApplicable, OpContext
from ..registry import RULES, op


def _known(*ts) -> None:
    for t in ts:
        if not isinstance(t, TensorV) or t.shape.rank is None:
            raise NotApplicable("operand unknown")


def _int_index(cx: OpContext, index: TensorV, allowed=("int64", "int32")) -> None:
    if index.dtype is not None and index.dtype not in allowed:
        cx.fail(f"{cx.opname}: the index must be an integer tensor ({'/'.join(allowed)}), got {index.dtype}", "SH107")


def _same_rank(cx: OpContext, x: TensorV, index: TensorV, what="index") -> None:
    if x.shape.rank != index.shape.rank and not (min(x.shape.rank, index.shape.rank) == 0
                                                  and max(x.shape.rank, index.shape.rank) <= 1):
        cx.fail(f"{cx.opname}: the {what} {index.shape} must have the same number of dimensions as "
                f"{cx.label(x)} {x.shape}", "SH102")


def _no_larger(cx: OpContext, index: TensorV, other: TensorV, skip, what: str) -> None:
    for i, (a, b) in enumerate(zip(index.shape.dims, other.shape.dims)):
        if i != skip:
            cx.require(le(a, b), lambda: f"{cx.opname}: index {index.shape} must be no larger than {what} {other.shape} "
                       f"at dimension {i}" + (f" (apart from dimension {skip})" if skip is not None else ""), "SH101")


@op("torch.gather", "Tensor.gather")
def gather(cx: OpContext, input, dim, index, *, sparse_grad=False, out=None):
    _known(input, index)
    _int_index(cx, index)
    d = cx.norm_dim(dim, input.shape.rank)
    _same_rank(cx, input, index)
    if all(x.value != 0 for x in index.shape.dims):  # an empty index skips the size checks
        _no_larger(cx, index, input, d, "input")
    return cx.tensor(index.shape, dtype=input.dtype)


def _scatter(name: str):
    def rule(cx: OpContext, input, dim, index, src=None, value=None, *, reduce=None, include_self=True, out=None):
        _known(input, index)
        d = cx.norm_dim(dim, input.shape.rank)
        _int_index(cx, index)
        _same_rank(cx, input, index)
        s = src if src is not None else value
        if isinstance(s, TensorV) and s.shape.rank is not None:
            _same_rank(cx, input, s, "src")
        if all(x.value != 0 for x in index.shape.dims):
            _no_larger(cx, index, input, d, "self")
            if isinstance(s, TensorV) and s.shape.rank is not None:
                _no_larger(cx, index, s, None, "src")
        return cx.tensor(input.shape, dtype=input.dtype)
    rule.__name__ = name
    return rule


for _n in ("scatter", "scatter_add", "scatter_reduce"):
    op(f"torch.{_n}", f"Tensor.{_n}", f"Tensor.{_n}_")(_scatter(_n))


def _index_op(name: str, needs_source: bool, index_dtypes=("int64", "int32")):
    def rule(cx: OpContext, input, dim, index, source=None, *, alpha=1, value=None, out=None):
        _known(input, index)
        d = cx.norm_dim(dim, input.shape.rank)
        if index.shape.rank > 1:
            cx.fail(f"{cx.opname}: the index must be a vector (0D or 1D), got {index.shape}", "SH102")
        _int_index(cx, index, index_dtypes)
        n = product(index.shape.dims)
        if needs_source and isinstance(source, TensorV) and source.shape.rank is not None:
            if source.shape.rank != input.shape.rank and not (input.shape.rank <= 1 and source.shape.rank <= 1):
                cx.fail(f"{cx.opname}: source {source.shape} must have the same number of dimensions as "
                        f"{cx.label(input)} {input.shape}", "SH102")
            sd = source.shape.dims
            for i, (a, b) in enumerate(zip(input.shape.dims, sd)):
                if i != d:
                    cx.require(eq(a, b), lambda: f"{cx.opname}: source {source.shape} must match {input.shape} except in "
                               f"dimension {d}", "SH101")
            got = sd[d] if sd else Expr.const(1)
            cx.require(eq(got, n), lambda: f"{cx.opname}: {n} indices but source has {got} entries along dimension {d}",
                       "SH101")
        return cx.tensor(input.shape, dtype=input.dtype)
    rule.__name__ = name
    return rule


op("torch.index_add", "Tensor.index_add", "Tensor.index_add_")(_index_op("index_add", True))
op("torch.index_copy", "Tensor.index_copy", "Tensor.index_copy_")(_index_op("index_copy", True, ("int64",)))
op("torch.index_fill", "Tensor.index_fill", "Tensor.index_fill_")(_index_op("index_fill", False, ("int64",)))


@op("torch.take_along_dim", "Tensor.take_along_dim")
def take_along_dim(cx: OpContext, input, indices, dim=None, *, out=None):
    _known(input, indices)
    if dim is None or isinstance(dim, NoneV):  # flattened; any integer index dtype works here
        _int_index(cx, indices)
        return cx.tensor(Shape((product(indices.shape.dims),)), dtype=input.dtype)
    _int_index(cx, indices, ("int64",))
    d = cx.norm_dim(dim, input.shape.rank)
    if input.shape.rank != indices.shape.rank:
        cx.fail(f"{cx.opname}: input {input.shape} and indices {indices.shape} must have the same number of "
                "dimensions", "SH102")
    if input.shape.rank == 0:
        cx.fail(f"{cx.opname}: dim is given but {cx.label(input)} has no dimensions", "SH105")
    a = list(input.shape.dims)
    b = list(indices.shape.dims)
    k = b[d]
    a[d] = b[d] = Expr.const(1)
    out = list(broadcast_shapes(cx, Shape(tuple(a)), Shape(tuple(b))).dims)
    out[d] = k
    return cx.tensor(Shape(tuple(out)), dtype=input.dtype)


@op("torch.masked_scatter", "Tensor.masked_scatter", "Tensor.masked_scatter_")
def masked_scatter(cx: OpContext, input, mask, source):
    _known(input, mask)
    broadcast_shapes(cx, input.shape, mask.shape)
    return cx.tensor(input.shape, dtype=input.dtype)


# ---- data-dependent sizes ----------------------------------------------------------------------

def _count(cx: OpContext, x: TensorV, hint="n", bound=None) -> Expr:
    """A fresh size for a data-dependent count, bounded by what the input can hold."""
    n = cx.fresh(hint)
    if bound is None and x.shape.rank is not None:
        bound = product(x.shape.dims)
    cx.require(conj(ge(n, 0), le(n, bound)) if bound is not None else ge(n, 0), "count bound", "SH107")
    return n


@op("torch.nonzero", "Tensor.nonzero")
def nonzero(cx: OpContext, input, *, out=None, as_tuple=False):
    _known(input)
    n = _count(cx, input)
    r = input.shape.rank
    if cx.bool_of(as_tuple):
        return TupleV(tuple(cx.tensor(Shape((n,)), dtype="int64") for _ in range(max(r, 1))))
    return cx.tensor(Shape((n, Expr.const(r))), dtype="int64")


@op("torch.argwhere", "Tensor.argwhere")
def argwhere(cx: OpContext, input):
    return nonzero(cx, input)


def _unique(name: str):
    def rule(cx: OpContext, input, sorted=True, return_inverse=False, return_counts=False, dim=None):
        flat = dim is None or isinstance(dim, NoneV)
        if not (flat and isinstance(input, TensorV)):  # (flattened: 1-D whatever the input's rank)
            _known(input)
        x = input
        if flat:
            n = _count(cx, x)
            out = [cx.tensor(Shape((n,)), dtype=x.dtype)]
            inv = x.shape
        else:
            d = cx.norm_dim(dim, x.shape.rank)
            n = _count(cx, x, bound=x.shape.dims[d] if x.shape.rank else None)
            dims = list(x.shape.dims)
            inv = Shape((dims[d],) if dims else ())
            if dims:
                dims[d] = n
            out = [cx.tensor(Shape(tuple(dims)), dtype=x.dtype)]
        if cx.bool_of(return_inverse):
            out.append(cx.tensor(inv, dtype="int64"))
        if cx.bool_of(return_counts):
            out.append(cx.tensor(Shape((n,)), dtype="int64"))
        return out[0] if len(out) == 1 else TupleV(tuple(out))
    rule.__name__ = name
    return rule


op("torch.unique", "Tensor.unique")(_unique("unique"))


@op("torch.unique_consecutive", "Tensor.unique_consecutive")
def unique_consecutive(cx: OpContext, input, return_inverse=False, return_counts=False, dim=None):
    return _unique("unique_consecutive")(cx, input, True, return_inverse, return_counts, dim)


@op("torch.bincount", "Tensor.bincount")
def bincount(cx: OpContext, input, weights=None, minlength=0):
    _known(input)
    if input.shape.rank != 1:
        cx.fail(f"{cx.opname}: the input must be 1-D, got {input.shape}", "SH102")
    return cx.tensor(Shape((cx.fresh("bins"),)), dtype="int64" if weights is None else "float32")


@op("torch.histc", "Tensor.histc")
def histc(cx: OpContext, input, bins=100, min=0, max=0, *, out=None):
    n = cx.int_of(bins)
    if n is None:
        raise NotApplicable("bins unknown")
    return cx.tensor(Shape((n,)), dtype=getattr(input, "dtype", None))


# torch.where(cond) (one argument) is nonzero(cond, as_tuple=True); the three-argument form is the
# elementwise family's rule, which this wraps rather than replaces.
_where3 = RULES.get("torch.where")


def _where(cx: OpContext, condition, input=None, other=None):
    if (input is None or isinstance(input, NoneV)) and (other is None or isinstance(other, NoneV)):
        return nonzero(cx, condition, as_tuple=True)
    if _where3 is None:
        raise NotApplicable("where")
    return _where3.fn(cx, condition, input, other)


if _where3 is not None:
    op("torch.where", *_where3.aliases)(_where)
