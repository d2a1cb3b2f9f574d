"""A function's own shape whose rank it leaves open, filled by what its calls agree on (issue 28,
cause 1: a block reached only through a container built in a loop).

A function given a tensor it reads only from the end (`H, W, _ = x.shape[-3:]`, `x[..., ::2, :]`)
keeps the leading axes as its parameter's segment: `[*x, (H + 1)//2, (W + 1)//2, 4*C]`, which
holds for any rank. That is its own analysis' shape, and no reader can evaluate `*x`. Each call
gives the same line in the function's own names (`contexts.translate`); where every call has a
known rank and the axes standing where the segment stands are the same own names in all of them
(`x.shape[0]`: the caller's batch is the parameter's first axis), the segment is those axes —
the shape is then what every call gives, the generic sizes kept.

A call made by the caller's own analysis that passes its parameter's whole shape on stands for
the calls that reach the caller: it is skipped only where the same call site was also reached
from further up with a known rank (a block's helper, the block called by the model); else the
caller may be called with any rank (an entry given another tensor) and the segment stays.
Construction contexts claim shapes only for the model a factory builds (a flag at its default
pools `[B, C]` where another string keeps `[B, N, C]`): never evidence. Any other call of unknown
rank, a size not known there, or calls not all kept leave the segment as it is."""
from __future__ import annotations

from typing import Optional

from ..shapes.shape import Shape, is_dyn
from .contexts import split, via_of


def filled(shape: Optional[Shape], calls: list, function: str) -> Optional[Shape]:
    """`shape` (the function's own, in its names) with its segment replaced by the axes every one
    of `calls` ((label, shape in the caller's names, shape in own names, dtype); no construction
    context among them) has there; as it is where they do not all agree."""
    if shape is None or shape.star is None:
        return shape
    p, s = len(shape.dims), len(shape.suffix)
    axes = None
    deeper = {split(c[0])[0] for c in calls if len(via_of(c[0])) > 1 and c[2] is not None and c[2].star is None}
    for call in calls:
        own = call[2]
        if own is None:
            return shape
        if own.star is not None:
            if own.star.startswith(f"{function}:") and len(via_of(call[0])) < 2 and split(call[0])[0] in deeper:
                continue  # (the caller's segment passed on: its calls from further up are among these)
            return shape
        k = len(own.dims) - p - s
        if k < 0:
            return shape
        got = own.dims[p:p + k]
        if axes is None:
            axes = got
        elif got != axes:
            return shape
    if axes is None or any(is_dyn(d) for d in axes):
        return shape
    return Shape(shape.dims + axes + shape.suffix)


class CallerFills:
    """A call a filled function's own analysis makes, in that function's names (the context
    `F:LINE` of a helper F calls at LINE, passing its parameter's segment on: `[*x, H', W',
    4*C]`), is filled alike: F's record at LINE was filled, so every call of F that ran that line
    has those axes there, and so does the helper's line in that call. Only a call whose value F
    records at LINE (an assignment), every record there holding that segment filled alike (the
    calls that reach another line of F may not reach this one: an early return); never in a
    construction context (no evidence for F's fill either), nor through deeper sites (`via`)."""

    def __init__(self):
        self.axes: dict = {}  # (function, line, star) -> the axes its records there were filled with, or None
        self.records: list = []  # (record, the construction contexts among its calls)

    def note(self, rec, own: Optional[Shape]) -> None:
        """A record whose own shape was `own` before `filled` (its shape now)."""
        if own is None or own.star is None:
            return
        shape, got = rec.shape, None
        if shape is not None and shape.star is None:
            got = tuple(shape.dims[len(own.dims):len(shape.dims) - len(own.suffix)])
        key = (rec.function, rec.span.line, own.star)
        self.axes[key] = got if self.axes.get(key, got) == got else None

    def later(self, rec, built: set) -> None:
        if any(s is not None and s.star is not None for _, s in rec.contexts):
            self.records.append((rec, built))

    def apply(self) -> None:
        for rec, built in self.records:
            rec.contexts[:] = [(lbl, self._filled(lbl, s, built)) for lbl, s in rec.contexts]

    def _filled(self, lbl, s: Optional[Shape], built: set) -> Optional[Shape]:
        if s is None or s.star is None or len(via_of(lbl)) > 1:
            return s
        where = split(lbl)[0]
        function, _, line = where.rpartition(":")
        axes = self.axes.get((function, int(line), s.star)) if line.isdigit() and where not in built else None
        return s if axes is None else Shape(s.dims + axes + s.suffix)
