"""The truth of an object in `if x:` / `x or y` (issue 28): Python asks `type(x).__bool__`, else
`type(x).__len__` (falsy at length 0), else it is truthy.

A class that defines either (`__bool__`, or `__len__` as a cache over a list of layers does) may
be falsy: an empty cache, a `ModuleList` of no layer. Its instances are undecided; an instance of
a class whose every ancestor the analysis sees (or knows to define neither: `object`, `ABC`,
`nn.Module`, a torch layer with a rule) and none of which defines either is truthy. torch's
containers (`Sequential`, `ModuleList`, `ModuleDict`, `ParameterList`, `ParameterDict`) define
`__len__`: truthy by their known number of children, else undecided.
"""
from __future__ import annotations

from typing import Optional

from ..ops import registry
from ..shapes.shape import FALSE, TRUE, Pred, ne
from ..shapes.values import ExtRef, ModuleV
from .objects import MODULE, BuiltinFn, ClassObj, InstanceObj

_SPECIAL = ("__bool__", "__len__")
_NEITHER = {"object", "builtins.object", "abc.ABC", "enum.Enum"} | MODULE  # (define no `__bool__` / `__len__`)
_SIZED = {"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.ParameterList",
          "torch.nn.ParameterDict"}


def _defines_neither(b) -> bool:
    if isinstance(b, BuiltinFn):
        return b.name == "object"
    if not isinstance(b, ExtRef):
        return False
    # (a torch layer with a rule is an `nn.Module` that is no container: `nn.Linear`)
    return b.path in _NEITHER or isinstance(registry.lookup(b.path), registry.ModuleRule)


def _plainly_truthy(cls: ClassObj, depth: int = 0) -> bool:
    """Whether no class among `cls` and its ancestors defines `__bool__` or `__len__`, all seen."""
    if depth > 64 or any(k in cls.attrs for k in _SPECIAL):
        return False
    for b in cls.bases:
        if isinstance(b, ClassObj):
            if not _plainly_truthy(b, depth + 1):
                return False
        elif not _defines_neither(b):
            return False
    return True


def _container(v: ModuleV) -> Optional[Pred]:
    if v.children is not None:
        return TRUE if v.children else FALSE
    if v.elem is not None and v.length is not None and v.head is None and v.tail is None \
            and not v.or_empty and v.prefix is None:
        return ne(v.length, 0)
    return None


def truth(v) -> Optional[Pred]:
    """The truth of a layer or an instance (None: undecided); None too for any other value."""
    if isinstance(v, ModuleV):
        return _container(v) if v.kind in _SIZED else TRUE
    if isinstance(v, InstanceObj):
        return TRUE if _plainly_truthy(v.cls) else None
    return None
