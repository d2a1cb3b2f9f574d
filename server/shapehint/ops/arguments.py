"""Reading a rule's int arguments: `3` or `(3, 3)`, Python or abstract, possibly None.

Shared by the rule families (conv, pool, resize, norm, rnn, attention, embedding, ...): an
argument the analysis cannot read makes the rule not applicable (unknown result, no error); a
malformed one is rejected as PyTorch rejects it.
"""
from __future__ import annotations

from ..shapes.expr import Expr
from ..shapes.shape import ge
from ..shapes.values import ListV, TensorV, TupleV
from .context import NotApplicable, OpContext


def int_args(cx: OpContext, v, n: int, what: str) -> list:
    """`3` or `(3, 3)` (Python or abstract) as n Exprs; a wrong length is rejected as PyTorch does."""
    if isinstance(v, (tuple, list)):
        items = list(v)
    elif isinstance(v, (TupleV, ListV)):
        if v.items is None:
            raise NotApplicable(f"{what} unknown")
        items = list(v.items)
    else:
        e = cx.int_of(v)
        if e is None:
            raise NotApplicable(f"{what} unknown")
        return [e] * n
    out = [cx.int_of(i) for i in items]
    if any(o is None for o in out):
        raise NotApplicable(f"{what} unknown")
    if len(out) == 1 and n > 1:
        out = out * n  # PyTorch expands a one-element list
    if len(out) != n:
        cx.fail(f"{cx.opname}: {what} must be an int or a tuple of {n} ints, got {len(out)} values", "SH107")
    return out


def opt_int(cx: OpContext, v, what: str):
    """An int argument that may be None (returns None)."""
    if cx.is_none(v):
        return None
    e = cx.int_of(v)
    if e is None:
        raise NotApplicable(f"{what} unknown")
    return e


def need_int(cx: OpContext, v, what: str) -> Expr:
    e = cx.int_of(v)
    if e is None:
        raise NotApplicable(f"{what} unknown")
    return e


def size_or_fresh(cx: OpContext, v, what: str = "") -> Expr:
    """A layer's channel or feature count: its int, or, when the analysis does not know the value
    it was built with (`nn.Conv2d(width, w_out, 3)` over widths computed at run time), a size of
    its own, so the output still has the shape of everything else it knows. (`what`: as
    need_int's, so a rule's configuration reader takes either.)"""
    e = cx.int_of(v)
    return e if e is not None else cx.fresh("?")


def positive(cx: OpContext, vals, what: str, lo: int = 1) -> None:
    for v in vals:
        cx.require(ge(v, lo), lambda: f"{cx.opname}: {what} must be {'positive' if lo == 1 else f'at least {lo}'}, "
                   f"got {v}", "SH107")


def known_tensor(v) -> TensorV:
    """The argument as a tensor; any other value makes the rule not applicable."""
    if not isinstance(v, TensorV):
        raise NotApplicable("input unknown")
    return v


def ranked_tensor(v) -> TensorV:
    """The argument as a tensor of known rank; else the rule is not applicable."""
    if not isinstance(v, TensorV) or v.shape.rank is None:
        raise NotApplicable("tensor of known rank needed")
    return v
