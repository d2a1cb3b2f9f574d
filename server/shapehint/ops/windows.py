"""Window geometry shared by convolutions, pooling and unfold: (un)batched channel-first
inputs and the number of windows a kernel makes along one spatial dimension."""
from __future__ import annotations

from ..shapes.expr import Expr
from ..shapes.shape import ge
from .context import OpContext


def split_batch(cx: OpContext, x, core: int, what: str = "input"):
    """(batch dims, channel dim, spatial dims) of a (N, C, *sp) or (C, *sp) input; core = 1 + len(sp)."""
    d = cx.dims(x, (core + 1, core), what)
    if len(d) == core + 1:
        return (d[0],), d[1], list(d[2:])
    return (), d[0], list(d[1:])


def window_out(h, k, s, p, d) -> Expr:
    """Number of windows: floor((H + 2p - d(k-1) - 1) / s) + 1."""
    return (Expr.lift(h) + 2 * p - d * (k - 1) - 1) // s + 1


def require_window(cx: OpContext, x, i: int, h, k, p, d, out) -> None:
    cx.require(ge(out, 1), lambda: f"{cx.opname}: {cx.label(x)} is too small at spatial dimension {i}: size {h} "
               f"with padding {p} is less than the kernel extent {d * (k - 1) + 1}", "SH107")
