"""Classes as values, and sets of them: how a layer factory recognises the class it was given
(`norm_layer in KINDS` over a set of layer classes, `TABLE.get(cls.__name__.lower())`).

A set of known items (`{A, B}`, `{m for m in table.values()}`) is an `objects.SetV`: membership
is decided as for a tuple, and nothing else about it is claimed (its order is Python's).
Classes compare by identity: two classes the analysis read are the same class only when they
are the same object; a torch class is never a class of the user's; two torch names are equal
when they are the same name (an alias, `torch.nn.modules.conv.Conv2d`, is not decided)."""
from __future__ import annotations

from typing import Optional

from ..shapes.values import DictV, ExtRef, FloatV, IntV, ListV, StrV, TupleV, UnknownV, Value
from . import autograd_fns
from .objects import ClassObj, FloatLimits, PartialV, SetV

# the float attributes of `torch.finfo(dtype)` (its `bits` and `dtype` are not floats)
FLOAT_LIMITS = ("min", "max", "eps", "tiny", "smallest_normal", "resolution")


def set_of(items) -> Value:
    """The set of `items` (a list of values, or None when they are not known)."""
    return SetV(tuple(items)) if items is not None else UnknownV("set")


def set_call(args: list, kwargs: dict) -> Value:
    """`set(items)` of a list or tuple whose items are known one by one (a copy: the list may
    change later, the set does not)."""
    if not args and not kwargs:
        return SetV(())
    v = args[0] if len(args) == 1 and not kwargs else None
    return set_of(list(v.items)) if isinstance(v, (TupleV, ListV)) and v.items is not None else UnknownV("set")


def length(v: Value) -> Optional[int]:
    """How many items a tuple or list of known length holds, or a set of known ints or strings
    (distinct by value: `len(set(widths))`); None when not known."""
    if isinstance(v, (TupleV, ListV)) and v.items is not None:
        return len(v.items)
    if isinstance(v, SetV) and v.items is not None:
        if all(isinstance(i, IntV) and i.expr.value is not None for i in v.items):
            return len({i.expr.value for i in v.items})
        if all(type(i) is StrV and i.value is not None for i in v.items):
            return len({i.value for i in v.items})
    return None


def other_attr(obj: Value, name: str) -> Value:
    """An attribute the analysis does not follow. A set's method may change it (`seen.add(i)`):
    from then on what it holds is not known, so no later `in` is decided on the old items.
    A partial's `func`, `args` and `keywords` are what it was made with (a norm layer unbound to
    be bound again with more keywords); `keywords` is the partial's own dict, as in Python, so a
    write through it changes what a later call passes."""
    if isinstance(obj, PartialV) and name in ("func", "args", "keywords"):
        return obj.func if name == "func" else TupleV(tuple(obj.args)) if name == "args" else DictV(obj.kwargs)
    if isinstance(obj, SetV) and name not in ("copy", "isdisjoint", "issubset", "issuperset"):
        obj.items = None
    if isinstance(obj, FloatLimits) and name in FLOAT_LIMITS:
        return FloatV()
    return UnknownV(f".{name}")


def _torch_class(v: Value) -> bool:
    return isinstance(v, ExtRef) and v.path.startswith("torch.") and v.path.rsplit(".", 1)[-1][:1].isupper()


def class_eq(a: Value, b: Value) -> Optional[bool]:
    """`a == b` (and `a is b`) where both are classes, else None."""
    if isinstance(a, ClassObj) and isinstance(b, ClassObj):
        return a is b
    if isinstance(a, ClassObj) and _torch_class(b) or isinstance(b, ClassObj) and _torch_class(a):
        return False
    if _torch_class(a) and _torch_class(b) and a.path == b.path:
        return True
    return None


def class_attr(cls: Value, name: str) -> Optional[Value]:
    """What a class holds that the analysis knows without reading it: its `__name__`, and an
    autograd function's `apply` (autograd_fns.py)."""
    if name != "__name__":
        return autograd_fns.apply_of(cls, name)
    if isinstance(cls, ClassObj):
        return StrV(cls.name)
    return StrV(cls.path.rsplit(".", 1)[-1]) if _torch_class(cls) else None
