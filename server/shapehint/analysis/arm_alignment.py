"""The join of an undecided `if` whose arms leave a tensor with sizes that differ as written but
agree wherever each arm runs:

    if (height % 2 == 1) or (width % 2 == 1):
        x = F.pad(x, (0, 0, 0, width % 2, 0, height % 2))   # [B, height + height%2, ...]
    # else: x as it was                                     # [B, height, ...]

Where the test is false, `height % 2 == 0`, so `height + height%2` is `height` there too: the
padded size is right on both paths. The per-dim join kept neither (`?`). A dim is written as
one arm's when the other arm's condition proves them equal (`returns.py` does the same for a
function's early returns, with the facts of the arm that returned). Nothing is claimed that the
condition does not prove, so arms that really differ still join to `?`.

One arm may pad a size up to a multiple of `m` where the other leaves it as it is:

    if width % m != 0:
        x = F.pad(x, (0, m - width % m))                    # [..., width + m - width%m]

Neither size holds on the other path, but `width + (m - width%m)%m` holds on both: a dim that
differs by a `%`-distance is written so, for each modulus the difference reads, when each arm's
condition proves it equal to that arm's size."""
from __future__ import annotations

import dataclasses
from typing import Optional

from ..shapes.expr import mod, written_mod
from ..shapes.shape import Pred, Shape, conj, is_dyn, ne, neg
from ..shapes.values import TensorV


def aligned_arms(test: Optional[Pred], a: TensorV, b: TensorV, sa: Shape, sb: Shape, facts) -> Optional[tuple]:
    """(a, b) with each dim of one arm that the other arm's condition proves equal to its own
    written alike (`test`: the condition of `a`'s arm; `sa`, `sb`: their shapes); None when no
    dim changes."""
    if test is None or facts is None or sa.rank is None or sa.rank != sb.rank or sa == sb:
        return None
    if sa.star is not None or sb.star is not None:
        return None
    dims_a, dims_b = list(sa.dims), list(sb.dims)
    changed = False
    for i, (da, db) in enumerate(zip(dims_a, dims_b)):
        if da == db:
            continue
        if facts.possible(conj(neg(test), ne(da, db)), core=False)[0] is False:
            dims_b[i] = da  # where `b`'s arm runs, `da` is its size too
            changed = True
        elif facts.possible(conj(test, ne(da, db)), core=False)[0] is False:
            dims_a[i] = db
            changed = True
        else:
            both = _rounded(test, da, db, facts)
            if both is not None:
                dims_a[i] = dims_b[i] = both
                changed = True
    if not changed:
        return None
    return _with(a, Shape(tuple(dims_a))), _with(b, Shape(tuple(dims_b)))


def _rounded(test: Pred, da, db, facts):
    """A size equal to `da` where `test` holds and to `db` elsewhere, one arm's size plus the
    other's difference from it taken modulo a modulus that difference reads; None if none is."""
    if is_dyn(da) or is_dyn(db):
        return None
    for base, diff in ((db, da - db), (da, db - da)):
        for m in sorted({a.args[1] for a in diff.atoms() if a.kind == "mod"}, key=str):
            asked = base + written_mod(diff, m)  # (proved as written, returned canonical)
            if facts.possible(conj(test, ne(asked, da)), core=False)[0] is False and \
                    facts.possible(conj(neg(test), ne(asked, db)), core=False)[0] is False:
                return base + mod(diff, m)
    return None


def _with(t: TensorV, s: Shape) -> TensorV:
    return dataclasses.replace(t, shape=s)


def aligned_options(outs: list, facts, resolve) -> list:
    """The results of a choice's options, [(the option's condition or None, its result)], each
    tensor's dims that its condition proves equal to the first tensor's written as those
    (choices.conditioned); the others as they are, so the join leaves them unknown."""
    ref = next((t for _, t in outs if isinstance(t, TensorV)), None)
    sa = resolve(ref) if ref is not None else None
    if sa is None or sa.star is not None or facts is None:
        return [t for _, t in outs]
    out = []
    for cond, t in outs:
        sb = resolve(t) if isinstance(t, TensorV) and t is not ref and cond is not None else None
        if sb is None or sb.star is not None or sb.rank != sa.rank or sb == sa:
            out.append(t)
            continue
        # (two sizes that both hold an unknown show as `?` whichever is written: no proof is sought)
        dims = tuple(da if da != db and not (is_dyn(da) and is_dyn(db)) and
                     facts.possible(conj(cond, ne(da, db)), core=False)[0] is False else db
                     for da, db in zip(sa.dims, sb.dims))
        out.append(_with(t, Shape(dims)) if dims != sb.dims else t)
    return out
