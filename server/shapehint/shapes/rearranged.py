"""How an operation that only rearranges axes (`transpose`, `unsqueeze`) maps a shape of known
rank to its result's: pure functions of the dims, so that a result taken of a tensor of unknown
rank can be written exactly once that rank is learned (analysis/environment.py, `derived`), and
its own rank, learned first (`b, h, t, d = v.shape`), teaches the input's (`rank - delta`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .expr import Expr


def _axis(i: int, rank: int) -> Optional[int]:
    j = i + rank if i < 0 else i
    return j if 0 <= j < rank else None


@dataclass(frozen=True)
class Swapped:
    """`transpose(a, b)`: the same axes, `a` and `b` exchanged."""
    a: int
    b: int
    delta = 0  # the result's rank less the input's

    def apply(self, dims: tuple) -> Optional[tuple]:
        """The result's dims for an input of these dims; None where the operation fails."""
        i, j = _axis(self.a, len(dims)), _axis(self.b, len(dims))
        if i is None or j is None:
            return None
        out = list(dims)
        out[i], out[j] = out[j], out[i]
        return tuple(out)


@dataclass(frozen=True)
class Inserted:
    """`unsqueeze(i)`: an axis of 1 at `i` of the result."""
    i: int
    delta = 1

    def apply(self, dims: tuple) -> Optional[tuple]:
        i = _axis(self.i, len(dims) + 1)
        if i is None:
            return None
        return tuple(dims[:i]) + (Expr.const(1),) + tuple(dims[i:])
