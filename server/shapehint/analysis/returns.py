"""The value of a call whose paths return several (issue 28; `repeat_kv`-like early returns).

A function that returns early under a condition (`if n_rep == 1: return x`) and otherwise
returns a computed value (`x.reshape(b, h * n_rep, t, d)`) gives shapes that differ as written
(`h` and `h*n_rep`) but agree on every path: where the early return was taken, `n_rep == 1`
held. The join of the paths kept neither (`?`). So a return made inside an undecided arm keeps
the facts in force there (`note`), and at the join each of its dims that those facts prove
equal to the dim another path returned (`h == h*n_rep` given `n_rep == 1`) is written as that
path's: one expression, right on both paths. Nothing is claimed that the arm's facts do not
prove, so a join that really differs still has `?`.
"""
from __future__ import annotations

from ..shapes.shape import Shape, eq
from ..shapes.values import DictV, ListV, TensorV, TupleV, UnknownV, Value


def note(fr, v: Value) -> None:
    """`return v` at this point of frame `fr` (before it is appended to `fr.returns`)."""
    if isinstance(v, TensorV) and fr.facts.branching:
        fr.arm_facts[len(fr.returns)] = fr.facts.snapshot()


def joined(it, fr) -> Value:
    """The value of the call that ran in frame `fr` (whose `returns` are two or more): each
    return made in an arm aligned with the last one (the path that got past every early return)."""
    vals = list(fr.returns)
    if fr.arm_facts and all(isinstance(v, TensorV) for v in vals):
        last = it.resolve(vals[-1])
        vals = [_aligned(it, fr.facts, fr.arm_facts.get(i), v, last) for i, v in enumerate(vals[:-1])] + vals[-1:]
    return it.join_values(vals)


def _aligned(it, store, facts, mine: TensorV, ref: Shape) -> TensorV:
    if facts is None:
        return mine
    shape = it.resolve(mine)
    if shape.rank is None or shape.rank != ref.rank or shape == ref:
        return mine
    held = store.facts
    store.take_facts(list(facts))  # (a probe of the arm's facts; the store's own put back below)
    try:
        dims = tuple(c if d == c or store.entails(eq(d, c)) else d for d, c in zip(shape.dims, ref.dims))
    finally:
        store.take_facts(held)
    if dims == shape.dims:
        return mine
    return TensorV(Shape(dims), mine.dtype, mine.origin, contiguous=mine.contiguous, optional=mine.optional)


def all_lost(it, f, rets: list) -> bool:
    """Every result of this call of `f` lost (or none made), so its return annotation may stand for
    them (calls.py) — unless `f`'s own analysis returned a container, which no tensor annotation
    describes: such an annotation is wrong (`-> torch.Tensor` on a layer that returns
    `(hidden_states,)`), and a tensor made of it would be indexed as one by the caller."""
    if not all(isinstance(r, UnknownV) for r in rets):
        return False
    return not any(isinstance(r, (TupleV, ListV, DictV)) for r in it.generic_returns.get(f.qualname) or ())
