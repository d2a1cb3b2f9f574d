"""A string enum called with one of its values is that member (`Format('NHWC')`).

timm's patch embeddings keep their output layout as a `str` enum (`class Format(str, Enum)`,
`self.output_fmt = Format(output_fmt)`) and choose the layout by comparing it with the members
(`if fmt == Format.NHWC:`). A member reads as its value (the class attribute `NHWC = 'NHWC'`),
and for a `str` enum that is what `==` compares, so the member that `Format('NHWC')` returns is
the string itself. Before, the call was an instance of a class with a foreign base, every
comparison undecided, and the arms' ranks (NHWC, NLC, NCHW) joined to nothing. Only a
`str`-mixin enum, a known string and a member with that value: anything else is the call it was.

A member is a singleton, so `fmt is Format.NHWC` (timm's `get_spatial_dim`) is decided too
(`identical`): two strings of different values are never one object, and the value the call
returned is the very attribute it was read from. Two equal strings otherwise stay undecided
(whether Python made them one object is its own business).
"""
from __future__ import annotations

import weakref
from typing import Optional

from ..shapes.values import DefaultStrV, StrV, Value
from .objects import ClassObj

_ENUMS = ("enum.Enum", "enum.StrEnum")
# the members `enum_member` returned: the class attributes themselves, so `is` one is decided
_MEMBERS: "weakref.WeakSet[StrV]" = weakref.WeakSet()


def enum_member(cls: ClassObj, args: list, kwargs: dict) -> Optional[Value]:
    """The member of the `str` enum `cls` whose value `args[0]` is, else None."""
    if len(args) != 1 or kwargs or not isinstance(args[0], StrV) or args[0].value is None:
        return None
    foreign = cls.foreign_bases()
    if not any(p in _ENUMS for p in foreign) or ("builtins.str" not in foreign and "enum.StrEnum" not in foreign):
        return None
    want = args[0].value
    for v in cls.attrs.values():
        if isinstance(v, StrV) and v.value == want:
            _MEMBERS.add(v)
            return v
    return None


def identical(a: Value, b: Value) -> Optional[bool]:
    """`a is b` between known strings: False when their values differ, True for an enum member
    and itself, else None. A parameter's string default is no decision (callers may replace it)."""
    if not isinstance(a, StrV) or not isinstance(b, StrV) or a.value is None or b.value is None \
            or isinstance(a, DefaultStrV) or isinstance(b, DefaultStrV):
        return None
    if a.value != b.value:
        return False
    return True if a is b and a in _MEMBERS else None
