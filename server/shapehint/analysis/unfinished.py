"""A construction whose `__init__` was cut off: past a step share (costs.py: a file of many
factories builds hundreds of imported layers, and the share for building them runs out), at
the call-depth or recursion bounds. The instance then holds only what `__init__` wrote before
it stopped — a `Sequential` subclass whose `super().__init__(*layers)` never ran is an empty
Sequential, and calling it would claim the identity `[*x]` where the real layers change the
shape (torchvision's efficientnet_v2 blocks). Such an instance is unknown, never a guess."""
from __future__ import annotations

from ..shapes.values import UnknownV, Value


def finished(inst: Value, init_value: Value) -> Value:
    """`inst` when its `__init__` ran to its end (it gave None, or whatever its paths return),
    else unknown: a cut-off call's value is an UnknownV, which no finished `__init__` gives."""
    if isinstance(init_value, UnknownV):
        return UnknownV(f"a construction cut off: {init_value.reason}")
    return inst
