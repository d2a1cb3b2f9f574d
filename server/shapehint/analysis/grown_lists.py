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

The containers a loop can grow are not only the lists in its local names: a `ModuleList` or a
list held in `self`'s attributes (`self.stages.append(Stage(prev, out))`), or in any object the
names reach, grows in place as well (`reachable`). Left with the children of the analysis' two
passes, whatever the real count, a later loop over them unrolled those two and claimed the
first stage's channels for every stage; so they too become containers of unknown length
(`widen`).
"""
from __future__ import annotations

from typing import Optional

from ..shapes.expr import Expr
from ..shapes.values import DictV, ListV, ModuleV, TensorV, TupleV, Value
from .loop_counts import every_pass_whole
from .objects import ChoiceV, InstanceObj

_REACH_LIMIT = 4000  # objects visited: a model's whole tree of layers is far smaller


def reachable(env: dict) -> dict:
    """id -> (container, its number of items) for every list of known items and every layer
    container of known children that `env`'s values reach: directly, or through instances'
    attributes, containers' items and children, tuples and dicts."""
    out, seen, todo = {}, set(), list(env.values())
    while todo and len(seen) < _REACH_LIMIT:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        items = _items(v)
        if items is not None:
            out[id(v)] = (v, len(items))
            todo.extend(items)
        elif isinstance(v, InstanceObj):
            todo.extend(v.attrs.values())
            todo.extend(v.seq or ())
        elif isinstance(v, TupleV):
            todo.extend(v.items)
        elif isinstance(v, DictV):
            todo.extend(v.items.values())
    return out


def _items(v) -> Optional[list]:
    if isinstance(v, ListV):
        return v.items
    if isinstance(v, ModuleV):
        return v.children
    return None


def layer_elem(v: Value) -> Optional[Value]:
    """`v` when it is a layer, or one of several (blocks built alike by each pass are distinct
    objects: a choice of them, each called in turn), as a layer container's element; else None
    (layers not known)."""
    if isinstance(v, ChoiceV) and all(isinstance(o, (ModuleV, InstanceObj)) for o in v.options):
        return v
    return v if isinstance(v, (ModuleV, InstanceObj)) else None


def grew(c, n0: int) -> bool:
    items = _items(c)
    return items is not None and len(items) > n0


def widen(c, join) -> list:
    """Container `c` grew in a pass of a loop: of unknown length from now on (the next pass adds
    to it in place), its element the join of every item, those from before the loop too; a
    layer container whose items do not join to one layer, or a choice of layers, holds layers
    not known. Returns the items it had."""
    if isinstance(c, ListV):
        items = c.items
        c.elem = join(items)
        c.items, c.length, c.appends = None, None, []
        return items
    items = c.children
    c.elem = layer_elem(join(items))
    c.children, c.names, c.length = None, None, None
    return items


def record(lst: ListV, name: str, args: list) -> None:
    """A write by `name` to a list of unknown length while the loop's second pass records it."""
    if lst.appends is None:
        return
    if name == "append" and len(args) == 1:
        lst.appends.append(args[0])
    else:
        lst.appends.append(None)  # (extend, insert: no block of known items)


def settle_all(st, added, env0: dict, trips: Optional[Expr], stable: bool) -> None:
    """After loop `st`, each container it grew, (container, length before, what the first pass
    appended, the items before): of `trips` times as many items more, when that is known and
    it is a local name's list — a layer container, or one held elsewhere, may have grown in an
    undecided arm (arm_lists.py follows the lists of local names only): its length stays
    unknown."""
    for lst, n0, items, head in added:
        local = isinstance(lst, ListV) and any(v is lst for v in env0.values())
        lst.length = Expr.const(n0) + len(items) * trips if trips is not None and local else None
        if local:
            settle(st, lst, head, items, trips, stable)
        elif isinstance(lst, ListV):
            lst.appends = None


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
    elif head and len(second) == 1 and all(layer_elem(v) is not None for v in head + second):
        # layers: the first ones, then one a pass (`layers.append(block(inplanes, planes))` over
        # `range(1, blocks)`), the second pass's standing for every pass (it ran from the loop's
        # joined state), so `nn.Sequential(*layers)` keeps that layout (layer_tails.py)
        lst.grown = (tuple(head), tuple(second), trips)


def forget(obj) -> None:
    if isinstance(obj, ListV):
        obj.grown = None


def _same_shape(a: Value, b: Value) -> bool:
    return isinstance(a, TensorV) and isinstance(b, TensorV) and a.shape.rank is not None and a.shape == b.shape
