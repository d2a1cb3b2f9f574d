"""A string enum called with one of its values is that member (`Format('NHWC')`).

timm's patch embeddings keep their output layout as a `str` enum (`class Format(str, Enum)`,
`self.output_fmt = Format(output_fmt)`) and choose the layout by comparing it with the members
(`if fmt == Format.NHWC:`). A member reads as its value (the class attribute `NHWC = 'NHWC'`),
and for a `str` enum that is what `==` compares, so the member that `Format('NHWC')` returns is
the string itself. Before, the call was an instance of a class with a foreign base, every
comparison undecided, and the arms' ranks (NHWC, NLC, NCHW) joined to nothing. Only a
`str`-mixin enum, a known string and a member with that value: anything else is the call it was.
"""
from __future__ import annotations

from typing import Optional

from ..shapes.values import StrV, Value
from .objects import ClassObj

_ENUMS = ("enum.Enum", "enum.StrEnum")


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
            return v
    return None
