"""A construction whose `__init__` was cut off: past a step share (costs.py: a file of many
factories builds hundreds of imported layers, and the share for building them runs out), at
the call-depth or recursion bounds — its class's own `__init__` or a base's reached through `super().__init__`
(regnet's stem, a subclass of an imported `Sequential` subclass). The instance then holds only what `__init__` wrote before
it stopped — a `Sequential` subclass whose `super().__init__(*layers)` never ran is an empty
Sequential, and calling it would claim the identity `[*x]` where the real layers change the
shape (torchvision's efficientnet_v2 blocks). Such an instance is unknown, never a guess.

A base's constructor cut off under a class with a `forward` of its own is another matter: the
subclass writes its layers after `super().__init__(config)` returns and its forward reads those
(transformers' models over an imported base whose constructor runs past the imported-call
share). What the base would have set is simply absent, so reads of it are unknown; marking the
whole model unknown there lost every line of llama's annotated run."""
from __future__ import annotations

from ..shapes.values import UnknownV, Value
from .objects import InstanceObj


def noted(f, args: list, out: tuple) -> tuple:
    """`out`, the result triple of calling `f` on `args`; a constructor of an instance (its
    class's `__init__`, or a base's through `super().__init__(...)`) whose call was cut off —
    its value an UnknownV, which no finished `__init__` gives — leaves the instance unfinished."""
    if isinstance(out[0], UnknownV) and args and isinstance(args[0], InstanceObj) and f.cls is not None \
            and getattr(f.node, "name", None) == "__init__" and _decides_behaviour(f, args[0]):
        args[0].cut = True
    return out


def _decides_behaviour(f, inst: InstanceObj) -> bool:
    """Whether the cut constructor `f` built what calling `inst` runs: its class's own `__init__`,
    or any constructor of an instance whose call is a built-in container's (no `forward` of its own)."""
    return f.cls is inst.cls or inst.cls.lookup("forward") is None


def finished(inst: Value) -> Value:
    """What a construction gives: `inst`, or unknown when a constructor of it was cut off."""
    return UnknownV("a construction cut off") if isinstance(inst, InstanceObj) and inst.cut else inst
