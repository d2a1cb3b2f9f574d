"""Tuples whose length differs between paths (issue 28, cause 2): `outputs = (out, bias)` then
`if output_attentions: outputs = outputs + (weights,)` returns two items on one path and three on
the other. Their join was unknown, so `layer_outputs[0]` — the hidden states every later layer
reads — was lost with everything after it whenever the flag was not known.

The join is an `OpenTupleV`: unknown to everything else (an `UnknownV`: its length, its truth,
iterating it, unpacking it into a number of names it may not have), holding the items every path
has at the front (`head`) and at the end (`tail`: `output = (hidden,)` then `if
output_attentions: output = (weights,) + output`, whose last item is the hidden states on both
paths). What reads only those is answered: an index into the head (`outputs[0]`) or from the end
into the tail (`outputs[-1]`), a slice from a known start (`outputs[1:]`, an open tuple again),
a known tuple put in front (`(hidden,) + outputs[1:]`; the tail is kept), a slice within the
head (`outputs[:2]`, a tuple) or the open tuple grown at its end (its head is kept, its tail is
what was added).
"""
from __future__ import annotations

from typing import Optional

from ..shapes.values import IntV, ListV, NoneV, SliceV, TupleV, UnknownV, Value
from .objects import OpenTupleV


def joined(vals: list, join) -> Optional[OpenTupleV]:
    """The join of tuples of different lengths (or open ones), `join` joining each front item;
    None where some value is no tuple, is a `torch.Size`, or they share no front item."""
    heads, tails = [], []
    for v in vals:
        if isinstance(v, OpenTupleV):
            heads.append(v.head)
            tails.append(v.tail)
        elif isinstance(v, TupleV) and v.items is not None and not v.is_size:
            heads.append(v.items)
            tails.append(v.items)
        else:
            return None
    n, m = min(len(h) for h in heads), min(len(t) for t in tails)
    if n == 0 and m == 0:
        return None
    return OpenTupleV("tuple of a length that differs between paths", tuple(join([h[i] for h in heads]) for i in range(n)),
                      tuple(join([t[len(t) - m + i] for t in tails]) for i in range(m)))


def of_list(v: Value) -> UnknownV:
    """`tuple(v)` of a value whose items are not known one by one: open where a list of unknown
    length knows its first items (`tuple(v for v in [h, cache, attn] if v is not None)`)."""
    if isinstance(v, ListV) and v.items is None and v.head:
        return OpenTupleV("tuple of a length not known", tuple(v.head))
    return UnknownV("tuple")


def item(t: OpenTupleV, idx: Value) -> Value:
    """`t[idx]`: an item of the head; a slice within the head (`t[:2]`: every path has those
    items) a tuple of them; a slice from a known start to the end the open tuple from there."""
    if isinstance(idx, IntV) and idx.expr.value is not None and 0 <= idx.expr.value < len(t.head):
        return t.head[idx.expr.value]
    if isinstance(idx, IntV) and idx.expr.value is not None and -len(t.tail) <= idx.expr.value < 0:
        return t.tail[idx.expr.value]
    if not isinstance(idx, SliceV) or not _absent(idx.step):
        return UnknownV("subscript")
    start, stop = (_bound(b, len(t.head)) for b in (idx.start, idx.stop))
    if start is None or stop is None:
        return UnknownV("subscript")
    if _absent(idx.stop):
        return OpenTupleV(t.reason, t.head[start:])
    return TupleV(t.head[start:stop]) if start <= stop else UnknownV("subscript")


def _bound(b, n: int) -> Optional[int]:
    """A slice bound within the head: an omitted one as 0 (the end is told apart by the caller),
    a constant from 0 to `n`; else None (from the end, or past the head: not known)."""
    if _absent(b):
        return 0
    if isinstance(b, IntV) and b.expr.value is not None and 0 <= b.expr.value <= n:
        return b.expr.value
    return None


def added(a: Value, b: Value) -> Value:
    """`a + b` where one is open: a known tuple in front keeps its items before the head (and the
    tail); an open tuple in front keeps its head (what follows it starts at an unknown position),
    and the tail is what follows it, when that is known or open."""
    if isinstance(a, OpenTupleV):
        known = isinstance(b, TupleV) and b.items is not None and not b.is_size
        tail = (tuple(b.items) or a.tail) if known else b.tail if isinstance(b, OpenTupleV) else ()
        return OpenTupleV(a.reason, a.head, tail)
    if isinstance(a, TupleV) and a.items is not None and not a.is_size and isinstance(b, OpenTupleV):
        return OpenTupleV(b.reason, tuple(a.items) + b.head, b.tail)
    return UnknownV("tuple")


def unpacked(t: OpenTupleV, n: int) -> Optional[list]:
    """The items of `a, b, c = t` on the paths that get past it (they had exactly `n` items):
    the head, and unknown items after it."""
    if n < len(t.head):
        return None
    return list(t.head) + [UnknownV("item")] * (n - len(t.head))


def _absent(v) -> bool:
    return v is None or isinstance(v, NoneV)
