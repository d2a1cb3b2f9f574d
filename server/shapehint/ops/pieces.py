"""Pieces known once their number is (issue 27: `x1, x2 = x.chunk(2, dim=1)` in ShuffleNet's block).

`x.chunk(n)` of a size not known gives `ceil(size/n)`-sized pieces, as many as that takes: n of
them or fewer (`chunk(2)` of a size 1 is one piece), so its result is a list of unknown length.
Unpacking it into n names goes on only where it had exactly n pieces, and then every piece is
known exactly: `s = ceil(size/n)` each, the last `size - (n-1)*s`. The list carries those items
for that one length (`ListV.if_length`); everything else (its `len`, a loop over it, unpacking
into another number of names) still sees a list of unknown length.
"""
from __future__ import annotations

from typing import Callable, Optional

from ..shapes.values import ListV, TupleV, Value


def if_counted(v: Value, n: Optional[int], pieces: Callable[[int], TupleV]) -> Value:
    """`v`, a list of unknown length, told what its items are when there are `n` of them
    (`pieces(n)`, the exact pieces on those paths); anything else unchanged, and so is `v` when
    the number itself is not known (`x.chunk(config.chunks)`)."""
    if isinstance(v, ListV) and v.items is None and n is not None and n >= 1:
        v.if_length = (n, tuple(pieces(n).items))
    return v
