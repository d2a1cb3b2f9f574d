"""Output objects (issue 28, cause 2): a `@dataclass` over a mapping base (`class Out(OrderedDict)`
with a `__post_init__`) whose items are its fields that are not None, read as attributes
(`out.hidden`), by key (`out["hidden"]`), by position (`out[0]`, `out[1:]`) and through
`keys()`/`values()`/`items()` (so a `to_tuple()` written as `tuple(self[k] for k in self.keys())`
reads them too).

The analysis does not run the class's own `__getitem__`: its body turns the key into a lookup
in the dict part (`dict(self.items())[k]`, `self.to_tuple()[k]`), which is the field's value by
the class's design — `__post_init__` stores each field that is not None as an item, in field
order. A class that has no `__post_init__` cannot have filled its items from its fields, so it
is not one of these. A position is read only when every field before it is known to be None or
not: a field that may be None shifts the ones after it, and then nothing is claimed."""
from __future__ import annotations

from typing import Optional

from ..shapes.values import (BoolV, DefaultStrV, DictV, FloatV, IntV, ListV, ModuleV, NoneV, SliceV, StrV,
                             TensorV, TupleV, UnknownV, Value)
from . import tables
from .frames import span_of
from .objects import ClassObj, InstanceObj

# the foreign bases that make a class a mapping (what `foreign_bases` names them)
MAPPING_BASES = frozenset({"builtins.dict", "collections.OrderedDict", "typing.OrderedDict", "typing.Dict"})
MAPPING_READS = ("keys", "values", "items")


def is_mapping_class(cls: ClassObj) -> bool:
    return any(p in MAPPING_BASES for p in cls.foreign_bases())


def own_items(inst: InstanceObj, name: str, args: list, kwargs: dict) -> Optional[Value]:
    """`super().__init__(entries)` and `super().__getitem__(key)` in a mapping subclass: the
    items it is built with (a copy, as the mapping's constructor makes), and the one of a key."""
    if name == "__init__" and len(args) == 1 and not kwargs and isinstance(args[0], DictV):
        inst.items = DictV(dict(args[0].items), args[0].open)
        return NoneV()
    if name == "__getitem__" and len(args) == 1 and isinstance(inst.items, DictV) and \
            isinstance(args[0], StrV) and not isinstance(args[0], DefaultStrV) and args[0].value in inst.items.items:
        return inst.items.items[args[0].value]
    return None


def _is_dataclass(cls: ClassObj, depth: int = 0) -> bool:
    return cls.is_dataclass or depth < 64 and any(
        isinstance(b, ClassObj) and _is_dataclass(b, depth + 1) for b in cls.bases)


def is_field_mapping(v: Value) -> bool:
    """Whether `v` is an instance of a dataclass whose items are its fields that are not None."""
    if not isinstance(v, InstanceObj):
        return False
    cls = v.cls
    return _is_dataclass(cls) and cls.lookup("__post_init__") is not None and is_mapping_class(cls)


def _present(v: Value) -> Optional[bool]:
    """Whether the field's value is there (not None): None when that is not known."""
    if isinstance(v, NoneV):
        return False
    if isinstance(v, TensorV):
        return None if v.optional else True
    if isinstance(v, (IntV, FloatV, BoolV, StrV, TupleV, ListV, DictV, ModuleV, InstanceObj)):
        return True
    return None  # unknown, opaque, or a join with None


def _items(inst: InstanceObj, upto: Optional[int] = None) -> Optional[list]:
    """The fields that are items, in order, as (name, value) pairs: all of them, or enough to
    know the first `upto`; None when a field before that may or may not be None."""
    out: list = []
    for name, _ in inst.cls.dataclass_fields():
        if upto is not None and len(out) >= upto:
            break
        v = inst.attrs.get(name)
        there = _present(v) if v is not None else None
        if there is None:
            return None
        if there:
            out.append((name, v))
    return out


def reads_items(inst: InstanceObj, name: str) -> bool:
    """`out.keys`, `.values`, `.items` of a field mapping (builtins.bound_op calls `read`)."""
    return name in MAPPING_READS and is_field_mapping(inst)


def item(it, inst: InstanceObj, idx: Value, node, fr, subscript) -> Value:
    """`inst[idx]`: a field mapping's field (a slice: `subscript` of the items' tuple), a table's
    entry or a mapping's callable read by a key not known (tables.py), else unknown."""
    if tables.is_table(inst):
        return tables.read(it, inst, idx, fr, span_of(node) if node is not None else None)
    if tables.is_lookup(inst) and not is_field_mapping(inst):
        return tables.any_lookup(it, inst, idx) or UnknownV("subscript")
    if not is_field_mapping(inst):
        return UnknownV("subscript")
    whole = as_tuple(inst) if isinstance(idx, SliceV) else None
    return subscript(whole, idx, node, fr) if whole is not None else _field(inst, idx) or UnknownV("subscript")


def _field(inst: InstanceObj, idx: Value) -> Optional[Value]:
    if isinstance(idx, StrV) and idx.value is not None:
        v = inst.attrs.get(idx.value)
        names = {n for n, _ in inst.cls.dataclass_fields()}
        return v if idx.value in names and v is not None and _present(v) else None
    if isinstance(idx, IntV) and idx.expr.value is not None:
        i = idx.expr.value
        pairs = _items(inst, i + 1 if i >= 0 else None)
        if pairs is None or not -len(pairs) <= i < len(pairs):
            return None
        return pairs[i][1]
    return None


def as_tuple(inst: InstanceObj) -> Optional[TupleV]:
    """The items' values in order (what a slice reads), or None when not known."""
    pairs = _items(inst)
    return None if pairs is None else TupleV(tuple(v for _, v in pairs))


def read(inst: InstanceObj, name: str) -> Optional[Value]:
    """`inst.keys()`, `.values()`, `.items()` of a field mapping, or None when not known."""
    pairs = _items(inst)
    if pairs is None:
        return None
    if name == "keys":
        return ListV([StrV(n) for n, _ in pairs])
    if name == "values":
        return ListV([v for _, v in pairs])
    return ListV([TupleV((StrV(n), v)) for n, v in pairs])
