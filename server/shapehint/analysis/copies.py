"""Copies of the containers the analysis holds: `copy.copy(d)`, `copy.deepcopy(d)`, `d.copy()`,
`l.copy()`. A builder that hands each repeated block its own copy of one decoded dict
(`[deepcopy(ba) for _ in range(n)]`) must give blocks that read the dict's keys, not unknown.

A copy is a new container (what the program writes to it later is its own); a deep copy copies
the containers inside it too. Values that Python copies as themselves (numbers, strings,
functions, classes) or that the analysis never writes in place (tensors, partials) are shared.
What the analysis cannot copy faithfully (an instance inside a deep copy, a lost value) makes the
copy unknown: a copy that shared a nested object with its original would let a write to one show
in the other."""
from __future__ import annotations

import dataclasses
from typing import Optional

from ..shapes.values import BoolV, DictV, ExtRef, FloatV, IntV, ListV, NoneV, StrV, TensorV, TupleV, UnknownV, Value
from .objects import ClassObj, FuncObj, InstanceObj, PartialV

# values no write of the program changes in place, so a copy may share them (a lost value: no
# write to it is followed)
_ATOMS = (BoolV, ExtRef, FloatV, IntV, NoneV, StrV, TensorV, UnknownV, ClassObj, FuncObj, PartialV)


def copied(v: Value, deep: bool) -> Optional[Value]:
    """The copy of `v` (`copy.deepcopy(v)` when `deep`, else `copy.copy(v)`), or None when the
    analysis cannot make one faithfully."""
    if isinstance(v, _ATOMS):
        return v
    if isinstance(v, DictV):
        items = {k: copied(i, True) if deep else i for k, i in v.items.items()}
        elem = copied(v.elem, True) if deep and v.elem is not None else v.elem
        if any(i is None for i in items.values()) or (v.elem is not None and elem is None):
            return None
        return DictV(items, open=v.open, elem=elem, exact=v.exact, written_elsewhere=v.written_elsewhere)
    if isinstance(v, ListV):
        if v.items is None or v.grown is not None or v.if_length is not None:
            return None  # (a list the analysis holds by its length or its loop: not copied item by item)
        items = [copied(i, True) if deep else i for i in v.items]
        if any(i is None for i in items):
            return None
        return ListV(items, name=v.name)
    if isinstance(v, TupleV):  # (immutable; only its contents may need copies)
        if not deep:
            return v
        items = [copied(i, True) for i in v.items]
        return None if any(i is None for i in items) else dataclasses.replace(v, items=tuple(items))
    return None


def copied_instance(v: InstanceObj) -> InstanceObj:
    """A config object copied before a loop changes it (`c = copy.copy(cnf); c.stride = 1`): the
    copy's attributes are its own, the original keeps its values."""
    return dataclasses.replace(v, attrs=dict(v.attrs))
