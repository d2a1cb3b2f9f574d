"""Objects that stand for several: the item of a list of unknown length, read by an index.

A loop over a configuration (`for kind in config.kinds: layers.append(Layer())`) leaves a list of
unknown length whose item is the one instance the loop's pass made; every `layers[i]` reads that
instance. A method that writes the state it reads (a cache layer: `self.keys = cat([self.keys,
k])`) then saw what `layers[0]` was given as `layers[1]`'s, and claimed twice the length where
each layer holds its own. So an instance read as such an item stands for several objects from
then on (`InstanceObj.many`), and a write to one of its attributes is joined with what it held:
the object written may be another than the one read before (a weak update). Writes to an
attribute it did not hold are kept as they are (a read sees them only where some write ran).
"""
from __future__ import annotations

from typing import Callable

from ..shapes.values import Value
from .objects import ChoiceV, InstanceObj


def item(elem: Value, mutated: Callable) -> Value:
    """`elem`, the item of a list of unknown length read by an index (an instance, or a choice of
    them: the instances the loop's passes made), marked as standing for several."""
    for o in (elem.options if isinstance(elem, ChoiceV) else (elem,)):
        if isinstance(o, InstanceObj) and not o.many:
            mutated(o)
            o.many = True
    return elem


def written(obj: InstanceObj, attr: str, v: Value, join: Callable) -> Value:
    """What `obj.attr = v` leaves in the attribute."""
    old = obj.attrs.get(attr)
    if not obj.many or old is None or old is v:
        return v
    return join([old, v])
