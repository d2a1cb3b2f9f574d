"""Tables of callables (issue 28, cause 5): an instance of a mapping subclass built from a dict
(`Table(ENTRIES)`) whose own `__getitem__` turns an entry into the callable
(`cls, kwargs = super().__getitem__(key)`, then `cls(**kwargs)`), read with a key the analysis
does not know (`TABLE[config.activation]`).

Calling each of thirty entries at every call site would cost more than the answer is worth, and
choices.py gives up above a few options. What such tables hold is mostly elementwise, so the
question asked is narrower and asked once per table: does every entry, given a tensor of any
shape, return one of that very shape and dtype? Each key is read through the class's own
`__getitem__` and its callable called on a tensor of unknown rank, in a frame of its own (a
fresh fact store, nothing recorded, errors not reported). When every entry keeps the shape the
lookup is an `objects.KeepsShapeV`, whose call gives its argument's shape; otherwise it is the
entries themselves when few (a ChoiceV), else unknown — never a guess. A key the analysis knows
reads that one entry through `__getitem__`, as Python does.

A mapping class may keep its entries elsewhere: a class-level dict of functions behind an
instance dict of local overrides (`REGISTRY[config.kind]`, `REGISTRY` an instance of such a
class). When no code the analysis does not run may add entries (lookup_writers.py: no
`__setitem__` or class method, no method writing through its receiver, no use by name that is
not a read), its `__getitem__` is run on the key not known, quietly as above: the dicts it reads with that key
give one of their values (choices.registry_choice), and when what it returns is a callable the
analysis can follow, or a choice among such, the read is that, and its call joins the options'
results (calls.py); anything else is unknown. With a key it knows, a class others may extend is
read too, unless code writes that same literal key elsewhere (registry_keys.py: registries gain
new keys, they are not overwritten under the ones they are built with)."""
from __future__ import annotations

import copy
from typing import Optional

from ..shapes.shape import Shape
from ..shapes.values import DefaultStrV, DictV, IntV, SliceV, StrV, TensorV, UnknownV, Value
from . import lookup_writers, registry_keys
from .choices import MAX_OPTIONS, choice_of, is_option
from .frames import Frame
from .objects import FuncObj, InstanceObj, KeepsShapeV

MAX_ENTRIES = 64  # past this many, reading every entry costs more than the answer is worth
PROBE_DTYPE = "float32"


def is_table(obj: Value) -> bool:
    """An instance holding a known dict of its own, with a `__getitem__` written in Python."""
    return isinstance(obj, InstanceObj) and isinstance(obj.items, DictV) and \
        isinstance(obj.cls.lookup("__getitem__"), FuncObj)


def is_lookup(obj: Value) -> bool:
    """An instance whose class has a `__getitem__` written in Python, its items not a dict of its own."""
    return isinstance(obj, InstanceObj) and not isinstance(obj.items, DictV) and \
        isinstance(obj.cls.lookup("__getitem__"), FuncObj)


def any_lookup(it, inst: InstanceObj, idx: Value) -> Optional[Value]:
    """`inst[idx]`, `inst` an `is_lookup` instance: what its `__getitem__` returns when that is a
    callable to follow (one, or a choice among several), else None. A key known (`FUNCS["eager"]`)
    reads its one entry as Python does; one not known, any entry its dicts hold for it."""
    if isinstance(idx, (IntV, TensorV, SliceV)):
        return None  # (a number indexes a sequence)
    if known_key(idx):
        if registry_keys.may_differ(it, inst, idx.value, lookup_writers.python_classes(inst.cls)):
            return None
    elif lookup_writers.extensible(it, inst):
        return None
    getitem = inst.cls.lookup("__getitem__")
    fr = Frame({}, getitem.qualname, it.new_store(), getitem.globals, cls=getitem.cls, record=False)
    fr.caught = 1  # a path that raises (a key missing) is no error of the program's
    out = it.call_function(getitem, [_as_seen(inst), idx], {}, fr, None)
    return out if is_option(out) else None


def _as_seen(inst: InstanceObj) -> InstanceObj:
    """A copy of `inst` whose own closed dicts hold exactly their keys: its class adds none after
    construction (not `_extensible`), so overrides `__init__` left empty hold none and
    `key in self._overrides` is False."""
    seen = copy.copy(inst)
    seen.attrs = {k: DictV(dict(v.items), exact=True) if isinstance(v, DictV) and not v.open and v.elem is None else v
                  for k, v in inst.attrs.items()}
    return seen


def known_key(idx: Value) -> bool:
    # a constructor's string default is what the class holds analysed on its own, not the key
    return isinstance(idx, StrV) and idx.value is not None and not isinstance(idx, DefaultStrV)


def read(it, table: InstanceObj, idx: Value, fr, span) -> Value:
    """`table[idx]`: the entry of a known key through the class's `__getitem__`, else what any
    entry is (found once per table)."""
    getitem = table.cls.lookup("__getitem__")
    if known_key(idx):
        return it.call_function(getitem, [table, idx], {}, fr, span)
    if table.any_item is None:
        table.any_item = _any_entry(it, table, getitem)
    return table.any_item


def _any_entry(it, table: InstanceObj, getitem: FuncObj) -> Value:
    d = table.items
    keys = list(d.items) if not d.open else []
    if not keys or len(keys) > MAX_ENTRIES or not all(isinstance(k, str) for k in keys):
        return UnknownV("table")
    fr = Frame({}, getitem.qualname, it.new_store(), getitem.globals, cls=getitem.cls, record=False)
    fr.caught = 1  # an entry that fails on the probe is no error of the program's
    entries, keeps, min_rank = [], True, 0
    for k in keys:
        entry = it.call_function(getitem, [table, StrV(k)], {}, fr, None)
        entries.append(entry)
        if keeps and not _keeps_shape(it, entry, fr, min_rank):
            # (an entry with a one-element parameter, `alpha * x`, turns a scalar into a 1-axis
            # tensor: it still keeps every shape of at least one axis, which is what models pass)
            min_rank = 1
            keeps = _keeps_shape(it, entry, fr, min_rank)
        if not keeps and len(keys) > MAX_OPTIONS:
            return UnknownV("table")  # (too many to be a choice either)
    if keeps:
        return KeepsShapeV(len(keys), min_rank)
    return choice_of(entries) or UnknownV("table")


def _keeps_shape(it, entry: Value, fr, min_rank: int = 0) -> bool:
    """Whether calling `entry` on a tensor of unknown rank (of at least `min_rank` axes: 0 or 1)
    gives one of the same shape and dtype, requiring nothing of the rank (an entry that needs a
    rank would learn it for the probe)."""
    shape = Shape(tuple(it.fresh_dyn() for _ in range(min_rank)), it.fresh_star(), ())
    probe = TensorV(shape, PROBE_DTYPE)
    out = it.call_value(entry, [probe], {}, fr, None, None, None)
    return isinstance(out, TensorV) and out.dtype == PROBE_DTYPE and \
        it.resolve(probe) == shape and it.resolve(out) == shape


def call_keeper(keeper: KeepsShapeV, args: list, kwargs: dict, span) -> Optional[Value]:
    """Calling a KeepsShapeV: its one tensor argument's shape and dtype (when the argument has the
    axes every entry needs)."""
    if len(args) == 1 and not kwargs and isinstance(args[0], TensorV) and args[0].shape.min_rank >= keeper.min_rank:
        return TensorV(args[0].shape, args[0].dtype, span)
    return None
