"""Each layer's own entry of a per-layer list (issue 28, decoder key/value caches).

A decoder builds its layers as `[Layer(config, layer_idx=i) for i in range(n)]`, `n` not known,
and a cache holds one entry per layer in a list of unknown length; each layer's attention calls
`cache.update(k, v, self.layer_idx)`, which reads `self.layers[layer_idx]` and concatenates its
keys with the new ones. The list's item is one instance standing for all entries
(many_items.py), so the loop over the layers, run to a fixpoint, saw in its second pass the keys
the first pass wrote, joined: a length of `?` where each layer's entry starts empty.

The comprehension's index is marked (`objects.OwnIndex`, an unknown value like any other), and
so is the list it builds (`mark`; a layer container made of it, and its `enumerate`, carry the
mark): each of its items holds another value of that index. While a loop over such a container runs
(`run_loop`), a list of unknown length read at that very index (`entry`) gives an entry of its
own, a copy of the list's item as it was when the loop first read it there (`Entry.base`); each
pass of the loop starts from that copy again, since the next pass's layer is another one, whose
index is another. What the entry's methods write stays in it (a strong update), and is joined
into the item and every other live view of it (`wrote`), so other reads — by a constant index,
through a copy of the list — see it as one of the values the item may hold. Past the loop the
entries are dropped: later reads see the item, joined.

Both hold only where the items are distinct objects: the marked container's item, and the
list's, must be instances made while the comprehension's element, or a loop's body, ran (`born`:
a list of one instance made before, `[one for _ in range(n)]`, holds the same object n times,
whose keys one layer's update adds to another's).
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Callable, Optional

from ..shapes.values import ListV, ModuleV, Value, born_now
from .objects import ChoiceV, InstanceObj, OwnIndex as Index


@dataclasses.dataclass(eq=False)
class Entry:
    lst: ListV  # the list read (held: its id keys the entry)
    item: InstanceObj  # the list's item (standing for several)
    base: dict  # what one entry holds before this loop's pass touches it
    slot: Optional[InstanceObj] = None  # the entry this pass reads, made on first read


def index_of(container: Value) -> Optional[Index]:
    """The index whose values the items of `container` hold one each, if marked."""
    return getattr(container, "own_index", None) if isinstance(container, (ListV, ModuleV)) else None


def now() -> int:
    """The creation count (`born`) values made from now on exceed."""
    return born_now()


def made(interp, since: int) -> None:
    """The values made from `since` until now were made by a comprehension's element or a loop's
    body: one object per item or pass."""
    interp.own_born.append((since, now()))


def mark(container: Value, index: Value, since: int) -> Value:
    """`container`, a comprehension's list whose element, an instance made from `since` on,
    holds another value of `index` in each item: marked so."""
    if isinstance(index, Index) and isinstance(container, ListV) and container.items is None and \
            isinstance(container.elem, InstanceObj) and container.elem.born > since:
        container.own_index = index
    return container


def _held_by_one(node, fr) -> bool:
    """The list is a name's, or an attribute of an instance that stands for one object: one
    standing for several (`caches[0]` of a `*caches` of unknown length, many_items.py) may hold
    several lists, whose entries at one index are several objects — the self-attention's and
    the cross-attention's caches both."""
    held = node.value if isinstance(node, ast.Subscript) else None
    if isinstance(held, ast.Attribute) and isinstance(held.value, ast.Name):
        holder = fr.env.get(held.value.id)
        return isinstance(holder, InstanceObj) and not holder.many and holder.view_of is None
    return isinstance(held, ast.Name)


def _born_per_item(interp, obj: InstanceObj) -> bool:
    return any(lo < obj.born < hi for lo, hi in interp.own_born)


def carried(src: Value, out: Value) -> Value:
    """`out`, made of `src` item for item in order (a layer container, `enumerate`): its mark."""
    index = index_of(src)
    if index is not None and (isinstance(out, ListV) and out.items is None or isinstance(out, ModuleV) and out.elem is not None):
        out.own_index = index
    return out


def run_loop(interp, it: Value, loop: Callable, bind: Callable):
    """`for layer in it`, run by `loop(bind)`, each pass with entries of its own at the
    container's index (none when it is not marked)."""
    index, since = index_of(it), now()
    if index is None:
        try:
            return loop(bind)
        finally:
            made(interp, since)
    # (a loop over the same items inside it: which item the index names is not known, no entries)
    active: Optional[dict] = None if any(a[0] is index for a in interp.own_loops) else {}  # (id(list), id(item)) -> Entry

    def each_pass():
        for e in (active or {}).values():
            e.slot = None
        bind()

    interp.own_loops.append((index, active))
    try:
        return loop(each_pass)
    finally:
        made(interp, since)
        interp.own_loops.pop()
        for e in (active or {}).values():
            e.item.views = [v for v in (e.item.views or ()) if v is not e] or None


def entry(interp, lst: ListV, idx: Value, node, fr) -> Optional[Value]:
    """`lst[idx]` (expression `node` in frame `fr`), a list of unknown length read at the index
    of a loop running over a marked container: this pass's own entry (one per instance the item
    may be); None otherwise."""
    if not isinstance(idx, Index) or not _held_by_one(node, fr):
        return None
    options = lst.elem.options if isinstance(lst.elem, ChoiceV) else (lst.elem,)
    if not all(isinstance(o, InstanceObj) and _born_per_item(interp, o) for o in options):
        return None
    for index, active in reversed(interp.own_loops):
        if index is idx:
            break
    else:
        return None
    if active is None:
        return None
    slots = []
    for o in options:
        e = active.get((id(lst), id(o)))
        if e is None:
            e = active[(id(lst), id(o))] = Entry(lst, o, dict(o.attrs))
            o.views = (o.views or []) + [e]
        if e.slot is None:
            interp.mutated(o)
            o.many = True  # (it stands for several: other writes to it are joined, many_items.py)
            e.slot = dataclasses.replace(o, attrs=dict(e.base), many=False, own_writes=None, views=None, view_of=o)
        slots.append(e.slot)
    return slots[0] if len(slots) == 1 else dataclasses.replace(lst.elem, options=tuple(slots))


def wrote(obj: InstanceObj, attr: str, v: Value, join: Callable) -> None:
    """`obj.attr = v` done: joined into the other views of the same objects."""
    item = obj.view_of if obj.view_of is not None else obj
    for e in item.views or ():
        if e.slot is obj:  # (its base stands for the entries of the other passes: not this one)
            continue
        for held in ((e.slot.attrs,) if e.slot is not None else ()) + (e.base,):
            old = held.get(attr)
            held[attr] = v if old is None or old is v else join([old, v])
    if obj is not item:
        old = item.attrs.get(attr)
        item.attrs[attr] = v if old is None or old is v else join([old, v])

