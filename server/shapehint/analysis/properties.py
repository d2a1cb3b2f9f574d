"""Properties with a setter (`@property def impl(self)` and `@impl.setter def impl(self, value)`).

Python finds a property on the class before the instance's own attributes: a store to its name
(`self.impl = kwargs.pop("impl", None)`, `setattr(obj, "impl", v)`) runs the setter, which keeps
the value where the getter reads it (`self._impl_internal = value`), and a read runs the getter.
Stored as a plain attribute, the value written later where the getter reads it
(`obj._impl_internal = "b"`) was never seen by a read of `obj.impl`: a shape of the arm the old
value picked, a wrong one. The class keeps the getter under the property's name (the setter's
`def` of the same name does not replace it) and the setter under `NAME.setter`, a key no Python
name can be, which base classes' lookups find as they find the getter.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.values import NoneV, StrV
from .frames import decorated
from .objects import ClassObj, FuncObj, InstanceObj

SETTER = ".setter"


def accessor_of(node: ast.FunctionDef) -> Optional[str]:
    """`setter` or `deleter` when `node` is `@NAME.setter` / `@NAME.deleter` of its own name."""
    for d in node.decorator_list:
        if isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter") and isinstance(d.value, ast.Name) \
                and d.value.id == node.name:
            return d.attr
    return None


def define(cls: ClassObj, f: FuncObj) -> None:
    """Put the method `f` of `cls`'s body in the class: an accessor beside its property."""
    kind = accessor_of(f.node)
    if kind is None:
        cls.attrs[f.node.name] = f
    elif kind == "setter":
        cls.attrs[f.node.name + SETTER] = f
    # (a deleter: `del obj.name` is not followed; the getter stays the name's)


def setter(cls, name: str) -> Optional[FuncObj]:
    """The setter that a store to `name` on an instance of `cls` runs, when `name` is a property
    of the class; `False` when it is one without a setter (Python raises); None when no property."""
    owner = _owner(cls, name, 0)
    getter = owner.attrs[name] if owner is not None else None
    if not (isinstance(getter, FuncObj) and getter.node is not None and decorated(getter.node, "property")):
        return None
    found = owner.attrs.get(name + SETTER)  # (the same class's: a subclass's property without one has none)
    return found if isinstance(found, FuncObj) else False


def stored_by(args: list):
    """`setter(...)` of `setattr(obj, "name", value)`'s arguments (None: not a property's name)."""
    if len(args) == 3 and isinstance(args[0], InstanceObj) and isinstance(args[1], StrV) and args[1].value is not None:
        return setter(args[0].cls, args[1].value)
    return None


def store(call, args: list, fr, span):
    """`setattr(obj, "name", value)` of a property's name: its setter called (`call`: the
    interpreter's call of a value), or nothing where it has none (Python raises)."""
    put = stored_by(args)
    if put:
        call(put, [args[0], args[2]], {}, fr, span)
    return NoneV()


def _owner(cls, name: str, depth: int) -> Optional[ClassObj]:
    """The class whose own attributes hold `name`, as ClassObj.lookup finds it."""
    if not isinstance(cls, ClassObj) or depth > 64:
        return None
    if name in cls.attrs:
        return cls
    return next((o for o in (_owner(b, name, depth + 1) for b in cls.bases) if o is not None), None)
