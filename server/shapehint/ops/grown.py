"""`torch.cat` of a list a loop grew by the same items each pass (`ListV.grown`, set by
analysis/grown_lists.py): the items before the loop, then `trips` times one pass's items, so the
joined axis is their sum — a dense block's `C0 + trips * growth` — where the element that joins
them all would only say "some size". A list of unknown length (`repeated`) is its element
the number of times it was grown."""
from __future__ import annotations

from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import ge
from ..shapes.values import ListV, TensorV
from .context import OpContext


def grown_cat(cx: OpContext, seq, dim) -> Optional[TensorV]:
    """The result of `torch.cat(seq, dim)` for a grown list whose items all have the element's
    rank; None otherwise (the caller's rule for lists of unknown length applies)."""
    if not isinstance(seq, ListV) or seq.items is not None or seq.grown is None or not isinstance(seq.elem, TensorV):
        return None
    head, block, trips = seq.grown
    r = seq.elem.shape.rank
    if not head or r is None or r == 0 or any(t.shape.rank != r for t in head + block):
        return None
    d = cx.norm_dim(dim, r)
    total = sum((t.shape.dims[d] for t in head), Expr.const(0)) + trips * sum((t.shape.dims[d] for t in block),
                                                                             Expr.const(0))
    dims = list(seq.elem.shape.dims)
    dims[d] = total
    return cx.tensor(dims, like=seq.elem)


def repeated(cx: OpContext, seq):
    """(element: the join of all the items, count: the length, else any) for a list built in a
    loop (`outs.append(h)`; a dense block's `features`, grown a number of times not known)."""
    if isinstance(seq, ListV) and seq.items is None and isinstance(seq.elem, TensorV) and seq.elem.shape.rank is not None:
        if getattr(seq, "length", None) is None:
            return seq.elem, cx.fresh("?count")
        cx.require(ge(seq.length, 1), lambda: f"{cx.opname} expects a non-empty list of tensors", "SH107")
        return seq.elem, seq.length
    return None
