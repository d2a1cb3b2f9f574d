"""Lists a loop grows by the same items each pass (issue 27, cause 4: a dense block's
`features.append(layer(features))` over its layers, then `torch.cat(features, 1)`).

The loop makes such a list one of unknown length whose element joins every item (controlflow's
`_loop_once`): the items before the loop (the block's input, `C0` channels) and those appended
(`growth` each) join to a size not known, so the `cat` of them all had no channel count. Where
the loop's trip count is known and its second pass — run from the loop's joined state, so what
it appends stands for what any pass appends — appended items of exactly the shapes the first
pass appended, the list is the items before the loop followed by `trips` times that block
(`ListV.grown`), and `cat` sums them (`ops/grown.py`: `C0 + trips * growth`). A symbol made
inside the body differs between the passes, so an item whose size depends on the pass is never
taken for a repeated one. Any later write to the list forgets it (`forget`, from
`Interp.mutated`).
"""
from __future__ import annotations

from typing import Optional

from ..shapes.expr import Expr
from ..shapes.values import ListV, TensorV, Value
from .loop_counts import every_pass_whole


def record(lst: ListV, name: str, args: list) -> None:
    """A write by `name` to a list of unknown length while the loop's second pass records it."""
    if lst.appends is None:
        return
    if name == "append" and len(args) == 1:
        lst.appends.append(args[0])
    else:
        lst.appends.append(None)  # (extend, insert: no block of known items)


def settle(st, lst: ListV, head: list, block: list, trips: Optional[Expr], stable: bool) -> None:
    """After loop `st`: the list is `head` then `trips` times `block` when the second pass
    appended what the first did, shape for shape, the loop reached its fixpoint and each pass
    runs the whole body."""
    second, lst.appends = lst.appends, None
    if trips is None or not stable or second is None or len(second) != len(block) or not block or \
            not every_pass_whole(st):
        return
    if all(_same_shape(a, b) for a, b in zip(block, second)) and all(isinstance(h, TensorV) for h in head):
        lst.grown = (tuple(head), tuple(block), trips)


def forget(obj) -> None:
    if isinstance(obj, ListV):
        obj.grown = None


def _same_shape(a: Value, b: Value) -> bool:
    return isinstance(a, TensorV) and isinstance(b, TensorV) and a.shape.rank is not None and a.shape == b.shape
