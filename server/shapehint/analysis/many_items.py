"""Objects that stand for several: the item of a list of unknown length, read by an index.

A loop over a configuration (`for kind in config.kinds: layers.append(Layer())`) leaves a list of
unknown length whose item is the one instance the loop's pass made; every `layers[i]` reads that
instance. A method that writes the state it reads (a cache layer: `self.keys = cat([self.keys,
k])`) then saw what `layers[0]` was given as `layers[1]`'s, and claimed twice the length where
each layer holds its own. So an instance read as such an item stands for several objects from
then on (`InstanceObj.many`), and a write to one of its attributes is joined with what it held:
the object written may be another than the one read before (a weak update). Writes to an
attribute it did not hold are kept as they are (a read sees them only where some write ran).

A method's receiver is one of those objects for the whole call, so what the method wrote through
it it reads back through it (`self.keys = cat([self.keys, k]); return self.keys`: the new keys,
not their join with the old): `read` gives the value written while nothing has written that
attribute of any of them since (the joined value is still the one that write left) and the
receiver's name is never rebound in the method (`receiver_name`).
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

from ..frontend.walk import walk
from ..shapes.values import Value
from . import own_entries
from .objects import ChoiceV, InstanceObj


def item(elem: Value, mutated: Callable) -> Value:
    """`elem`, the item of a list of unknown length read by an index (an instance, or a choice of
    them: the instances the loop's passes made), marked as standing for several."""
    for o in (elem.options if isinstance(elem, ChoiceV) else (elem,)):
        if isinstance(o, InstanceObj) and not o.many:
            mutated(o)
            o.many = True
    return elem


def written(obj: InstanceObj, attr: str, v: Value, join: Callable, target=None, fr=None) -> Value:
    """What `obj.attr = v` (the assignment's `target`, in frame `fr`) leaves in the attribute."""
    if obj.views or obj.view_of is not None:
        own_entries.wrote(obj, attr, v, join)
    old = obj.attrs.get(attr)
    if not obj.many or old is None or old is v:
        return v
    out = join([old, v])
    if fr is not None and _through_receiver(obj, target, fr):
        obj.own_writes = {**(obj.own_writes or {}), attr: (fr, out, v)}
    return out


def read(obj: InstanceObj, attr: str, node, fr) -> Value:
    """`obj.attr` read by expression `node` in frame `fr`: what the frame wrote there through its
    receiver while no other write came since, else what the attribute holds."""
    v = obj.attrs[attr]
    mine = obj.own_writes.get(attr) if obj.many and obj.own_writes else None
    if mine is not None and mine[0] is fr and mine[1] is v and _through_receiver(obj, node, fr):
        return mine[2]
    return v


def _through_receiver(obj: InstanceObj, node, fr) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and fr.receiver != "" \
        and node.value.id == fr.receiver and fr.self_obj is obj


def receiver_name(fn: ast.AST) -> str:
    """The name of a method's first parameter when the method never rebinds it, else ""."""
    got: Optional[str] = getattr(fn, "_receiver_name", None)
    if got is None:
        a = fn.args
        first = (a.posonlyargs + a.args)[0].arg if a.posonlyargs + a.args else ""
        rebound = any(isinstance(n, ast.Name) and n.id == first and not isinstance(n.ctx, ast.Load) or
                      isinstance(n, (ast.Global, ast.Nonlocal)) and first in n.names for n in walk(fn)
                      if n is not fn)
        got = "" if rebound else first
        fn._receiver_name = got
    return got
