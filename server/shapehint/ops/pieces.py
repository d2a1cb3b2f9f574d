"""Pieces known once their number is (issue 27: `x1, x2 = x.chunk(2, dim=1)` in ShuffleNet's block).

`x.chunk(n)` of a size not known gives `ceil(size/n)`-sized pieces, as many as that takes: n of
them or fewer (`chunk(2)` of a size 1 is one piece), so its result is a list of unknown length.
Unpacking it into n names goes on only where it had exactly n pieces, and then every piece is
known exactly: `s = ceil(size/n)` each, the last `size - (n-1)*s`. The list carries those items
for that one length (`ListV.if_length`); everything else (its `len`, a loop over it, unpacking
into another number of names) still sees a list of unknown length.

Pieces of an unknown count are whole again when concatenated along the axis they hold (a helper
that chunks its input, applies a function to each piece and concatenates the results:
`torch.cat(tuple(fn(*p) for p in zip(*chunked)), dim)` is as long as the input). The list says
so (`ListV.whole`: the symbol each item's own piece size is written with, and the total), and
keeps saying it through what maps its items one to one: `zip` of it alone, `tuple` of it, a
comprehension over it without a filter, whose items are made with a symbol of their own (so
no item read off the list elsewhere, `pieces[0]`, passes for the comprehension's item). A write
to the list forgets it. `torch.cat` of such a list along the axis where the item holds that
symbol, and nowhere else, has the total there (whole_again).
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional

from ..shapes.expr import Expr
from ..shapes.values import ListV, TensorV, TupleV, Value


def if_counted(v: Value, n: Optional[int], pieces: Callable[[int], TupleV]) -> Value:
    """`v`, a list of unknown length, told what its items are when there are `n` of them
    (`pieces(n)`, the exact pieces on those paths); anything else unchanged, and so is `v` when
    the number itself is not known (`x.chunk(config.chunks)`)."""
    if isinstance(v, ListV) and v.items is None and n is not None and n >= 1:
        v.if_length = (n, tuple(pieces(n).items))
    return v


def whole_again(cx, tensors: Value, dim) -> Optional[TensorV]:
    """`torch.cat(tensors, dim)` of a list of pieces made whole: the total along `dim`."""
    if not (isinstance(tensors, ListV) and tensors.items is None and tensors.whole is not None):
        return None
    piece, total = tensors.whole
    t, d = tensors.elem, cx.const_int(dim)
    if not isinstance(t, TensorV) or t.shape.rank in (None, 0) or d is None or not -t.shape.rank <= d < t.shape.rank:
        return None
    dims = list(t.shape.dims)
    name = _name(piece)
    if dims[d] != piece or any(name in e.symbols() for k, e in enumerate(dims) if k != d % len(dims)):
        return None
    dims[d] = total
    return cx.tensor(dims, like=t)


def each_piece(source: Value, elem: Value, fresh: Callable[[], Expr]) -> tuple:
    """The item a comprehension without a filter binds for `source` (`elem`, its items' join)
    and the `whole` of the list it makes: the piece written with a symbol of its own."""
    if not (isinstance(source, ListV) and source.items is None and source.whole is not None):
        return elem, None
    piece, total = source.whole
    new = fresh()
    return _renamed(elem, _name(piece), new), (new, total)


def zipped(args: list) -> Optional[tuple]:
    """The `whole` of `zip(pieces)`: each tuple holds one piece."""
    return args[0].whole if len(args) == 1 and isinstance(args[0], ListV) and args[0].items is None else None


def kept_whole(v: Value) -> Optional[ListV]:
    """`tuple(v)` of a list of pieces: the same items, still whole when concatenated."""
    return v if isinstance(v, ListV) and v.items is None and v.whole is not None else None


def forget(obj) -> None:
    """`obj` is written to: its items may no longer be the pieces, one each."""
    if isinstance(obj, ListV):
        obj.whole = None


def _name(piece: Expr) -> Optional[str]:
    syms = piece.symbols()
    return next(iter(syms)) if len(syms) == 1 and piece == Expr.sym(next(iter(syms))) else None


def _renamed(v: Value, old: Optional[str], new: Expr) -> Value:
    if old is None:
        return v
    if isinstance(v, TensorV) and v.shape.rank is not None:
        return dataclasses.replace(v, shape=v.shape.subs({old: new}))
    if isinstance(v, TupleV) and v.items is not None:
        return TupleV(tuple(_renamed(i, old, new) for i in v.items), v.is_size)
    return v
