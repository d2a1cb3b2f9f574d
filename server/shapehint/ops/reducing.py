"""The shape of a reduction over some dims (`dim=None`: all of them), with or without
`keepdim`: shared by the reductions and the scans families (`aminmax`, `quantile`)."""
from __future__ import annotations

from ..shapes.expr import Expr
from ..shapes.shape import Shape, ne
from ..shapes.values import ListV, TensorV, TupleV
from .common import apart, dim_list
from .context import NotApplicable, OpContext


def reduce_shape(cx: OpContext, x: TensorV, dim, keepdim, empty_ok: bool = True, all_if_empty=True,
                 name: str = "") -> Shape:
    """Shape of reducing x over `dim` (None: all dims)."""
    keep = bool(cx.bool_of(keepdim))
    if x.shape.rank is None:
        return _reduce_unknown(cx, x, dim, keep)
    dims = x.shape.dims
    r = len(dims)
    which = dim_list(cx, dim, r)
    if which is not None and not which and all_if_empty:
        which = None
    if which is not None and len(set(which)) != len(which):
        cx.fail(f"{cx.opname}: a dim appears more than once in {which}", "SH107")
    red = list(range(r)) if which is None else which
    if not empty_ok:
        for i in (red if r else []):
            cx.require(ne(dims[i], 0), lambda: f"{cx.opname}: cannot reduce ({name}) over dimension {i} of size 0: the "
                       "operation has no identity", "SH107")
    if which is None and not keep:
        return Shape(())
    if keep:
        return Shape(tuple(Expr.const(1) if i in red else d for i, d in enumerate(dims)))
    return Shape(tuple(d for i, d in enumerate(dims) if i not in red))


def _reduce_unknown(cx: OpContext, x: TensorV, dim, keep: bool) -> Shape:
    if cx.is_none(dim) and not keep:
        return Shape(())
    items = dim.items if isinstance(dim, (TupleV, ListV)) else [dim]
    idx = [cx.const_int(i) for i in (items or [])]
    if cx.is_none(dim) or None in idx or not idx:
        raise NotApplicable("rank unknown")
    for i in idx:
        cx.dim(x, i)  # learn enough of the edges (may fix the rank)
    if x.shape.rank is not None:
        return reduce_shape(cx, x, dim, keep)
    s = apart(cx, x.shape, front=[i for i in idx if i >= 0], back=[-i for i in idx if i < 0])
    one = Expr.const(1)
    pre = [one if i in idx else d for i, d in enumerate(s.dims)]
    suf = [one if (i - len(s.suffix)) in idx else d for i, d in enumerate(s.suffix)]
    if not keep:
        pre = [d for i, d in enumerate(s.dims) if i not in idx]
        suf = [d for i, d in enumerate(s.suffix) if (i - len(s.suffix)) not in idx]
    return Shape(tuple(pre), s.star, tuple(suf))
