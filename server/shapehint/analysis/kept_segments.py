"""The segment an edit on a tensor of unknown rank sets apart (`ops/common.apart`): one per
analysis for the same axes dropped.

`x[..., :h]` and `x[..., h:]` of `[B, *x, d]` whose two sides may be the same axes (x read as
`x.shape[0]`, then `x.shape[-1]`) each keep `d` and put `B` with `*x` into a segment of their
own. Both set apart the same axes of the same tensor, so the two segments are the same axes:
one segment for both lets `torch.cat((-x2, x1), dim=-1)` (rotary embeddings' `rotate_half`)
join them, where two fresh ones left the result unknown (issue 28). The key is the dropped axes
themselves (the old segment and the known axes around it), so tensors that only share a
segment but lay other axes around it get their own."""
from __future__ import annotations

import weakref
from typing import Optional

_STARS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def star_for(interp, like: Optional[str], dropped: tuple) -> str:
    stars = _STARS.get(interp)
    if stars is None:
        stars = _STARS[interp] = {}
    star = stars.get(dropped)
    if star is None:
        star = stars[dropped] = interp.fresh_star(like)
    return star
