"""`len(obj)` of an instance whose class defines `__len__`: that method's result (issue 28).

Python's `len(obj)` calls `type(obj).__len__(obj)`. A cache that keeps its layers in a list
answers `len(cache)` with `len(self.layers)`; the analysis gave an unknown int, so a pair of
caches filling a flag per layer of a fresh, empty cache (`for i in range(len(cache)): flags[i] =
cache.length(i) > 0`) ran that loop an unknown number of times, with an undecided flag, and a
later `if flags.get(i)` took the arm that reads stored keys that are not there. The method is
found in the class's method resolution order (C3, `config_bases.mro`), and only where every
class in it is one the analysis sees (a base it does not see, other than `object` or `abc.ABC`,
may define `__len__` itself: `list`, a class of another package) and the interpreter's attribute lookup picks the same method.
"""
from __future__ import annotations

from typing import Optional

from ..shapes.values import ExtRef, IntV, UnknownV, Value
from .config_bases import mro
from .objects import BuiltinFn, ClassObj, FuncObj, InstanceObj

_INERT = ("object", "abc.ABC", "builtins.object")  # (bases that define no `__len__`)


def _inert(b) -> bool:
    return isinstance(b, ExtRef) and b.path in _INERT or isinstance(b, BuiltinFn) and b.name == "object"


def _bases(cls) -> Optional[list]:
    if not isinstance(cls, ClassObj):
        return None
    out = []
    for b in cls.bases:
        if _inert(b):
            continue
        if not isinstance(b, ClassObj):
            return None
        out.append(b)
    return out


def _method(cls: ClassObj) -> Optional[FuncObj]:
    order = mro(cls, _bases)
    if order is None:
        return None
    own = next((c.attrs["__len__"] for c in order if "__len__" in c.attrs), None)
    return own if isinstance(own, FuncObj) and own is cls.lookup("__len__") else None


def length(part, v: Value, fr, span) -> Value:
    """`len(v)` by its class's `__len__`, where that method is known and gives an int; else an
    unknown. `part` has the interpreter's `attribute` and `call_value`."""
    if not isinstance(v, InstanceObj) or _method(v.cls) is None:
        return UnknownV("len")
    got = part.call_value(part.attribute(v, "__len__", None, fr), [], {}, fr, span)
    return got if isinstance(got, IntV) else UnknownV("len")
