"""The join of tensors whose ranks differ on the paths (issue 28: timm's classifier heads).

A head that pools only for some constructions (`if self.global_pool == 'avg': x = x.mean(1)`,
a pooling layer chosen by a `pool_type` string that may be `''`) leaves `[B, C]` on one path and
`[B, N, C]` or `[B, C, H, W]` on another. Joined as shapes of one rank they are nothing, and so
was every line after them (the classifier, the logits). What every path agrees on still holds:
the leading axes they share and the trailing ones, around a segment of unknown length (maybe
empty) — `[B, *s, C]`, through which a `Linear` still gives `[B, *s, classes]`. Only axes equal
on every path are kept, so the shape shown holds whichever path (whichever string) was taken; the
segment between them claims nothing, not even its length."""
from __future__ import annotations

from typing import Callable, Optional

from ..shapes.shape import Shape
from .contexts import join_shapes


def _ends(s: Shape) -> tuple:
    """(axes that may be read from the front, axes that may be read from the back) of `s`."""
    return (s.dims, s.suffix) if s.star is not None else (s.dims, s.dims)


def common_ends(shapes: list, fresh_star: Callable[..., str],
                shared: Callable[[str], bool] = lambda star: False) -> Optional[Shape]:
    """`[shared leading axes, *new, shared trailing axes]` for `shapes` of ranks that differ;
    None when they share no axis at either end. The segment is always a new one: an old one's
    name (the input's `*x`) would claim its length, which a path that added axes changed."""
    fronts = [_ends(s)[0] for s in shapes]
    backs = [_ends(s)[1] for s in shapes]
    p = 0
    while all(p < len(f) for f in fronts) and len({f[p] for f in fronts}) == 1:
        p += 1
    q = 0
    while all(q < len(b) for b in backs) and len({b[-1 - q] for b in backs}) == 1:
        q += 1
    for s in shapes:  # a known rank: the shared front and back must not overlap in it
        if s.star is None and p + q > len(s.dims):
            q = len(s.dims) - p
    if p == 0 and q <= 0:
        return None
    prefix = fronts[0][:p]
    suffix = backs[0][len(backs[0]) - q:] if q > 0 else ()
    # a path whose two sides may be the same axes (Environment.shared_sides) may be as short as
    # its longer side: so may the join
    like = next((s.star for s in shapes if s.dims and s.suffix and shared(s.star)), None) if p and q > 0 else None
    return Shape(prefix, fresh_star(like) if like else fresh_star(), suffix)


def line_join(shapes: list) -> Optional[Shape]:
    """One line's shape over the paths and calls that observed it (sink.py): their join, or where
    their segments differ (a loop's first pass from `[*ids, H]` read at `.shape[1]`, the later
    ones from the layer's `[*?, H]`) the axes every one agrees on at either end, around a segment
    that claims nothing. A shape whose two sides may be the same axes (`[a, *s, b]` of one axis)
    keeps one end only: the sink cannot tell, and both would claim two axes."""
    joined = join_shapes(shapes)
    if joined is not None or len(shapes) < 2 or any(s is None for s in shapes):
        return joined
    ends = common_ends(shapes, lambda *_: "?ends")
    if ends is not None and ends.dims and ends.suffix and any(s.star and s.dims and s.suffix for s in shapes):
        return Shape((), ends.star, ends.suffix)
    return ends
