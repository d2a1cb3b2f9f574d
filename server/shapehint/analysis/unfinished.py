"""A construction whose `__init__` was cut off: past a step share (costs.py: a file of many
factories builds hundreds of imported layers, and the share for building them runs out), at
the call-depth or recursion bounds — its class's own `__init__` or a base's reached through `super().__init__`
(regnet's stem, a subclass of an imported `Sequential` subclass). The instance then holds only what `__init__` wrote before
it stopped — a `Sequential` subclass whose `super().__init__(*layers)` never ran is an empty
Sequential, and calling it would claim the identity `[*x]` where the real layers change the
shape (torchvision's efficientnet_v2 blocks). Such an instance is unknown, never a guess.

Except where only a plain base was cut off (issue 28: a transformers model's `super().__init__(config)`
into another library's base class, past its share, made `LlamaForCausalLM` and its `self.model`
unknown). Once that base's `__init__` has returned, what the subclass writes after it is what the
instance holds; what it held before, and anything it does not write, the base may have set: those
read as unknown (`InstanceObj.unwritten`). A base that is a torch layer or container, a mapping,
or a class with its own `__setattr__` keeps the whole instance unknown."""
from __future__ import annotations

from typing import Optional

from ..shapes.values import UnknownV, Value
from . import cut_writes
from .objects import MODULE, FuncObj, InstanceObj


def noted(it, f, args: list, kwargs: dict, out: tuple) -> tuple:
    """`out`, the result triple of calling `f` on `args`; a call cut off may have written what
    its arguments reach (cut_writes.py); a constructor of an instance (its
    class's `__init__`, or a base's through `super().__init__(...)`) whose call was cut off —
    its value an UnknownV, which no finished `__init__` gives — leaves the instance unfinished."""
    if type(out[0]) is UnknownV and out[0].reason in cut_writes.CUT_SHORT:
        cut_writes.forget(it, f, args, kwargs)
    if isinstance(out[0], UnknownV) and args and isinstance(args[0], InstanceObj) and f.cls is not None \
            and getattr(f.node, "name", None) == "__init__":
        inst = args[0]
        if f.cls is not inst.cls and _plain(inst.cls) and not inst.cut:
            inst.unwritten = True
            for name in inst.attrs:  # (written before the base ran, or by its part that was analysed)
                inst.attrs[name] = UnknownV(f"self.{name}")
        else:
            inst.cut = True
    return out


def _plain(cls) -> bool:
    """Whether what instances of `cls` hold is only their attributes: no torch base but
    `nn.Module`, no container or mapping base, no `__setattr__` of its own."""
    return all(p in MODULE for p in cls.foreign_bases()) and not cls.is_sequential() \
        and cls.lookup("__setattr__") is None and cls.lookup("__getitem__") is None


def unwritten(inst: InstanceObj, name: str, found: Optional[Value]) -> Optional[Value]:
    """What `inst.name` reads when `inst` does not hold `name` itself (`found`: what its class
    gives): unknown when a base's cut-off constructor may have set it (a method stays the class's)."""
    return UnknownV(f"self.{name}") if inst.unwritten and not isinstance(found, FuncObj) else found


def finished(inst: Value) -> Value:
    """What a construction gives: `inst`, or unknown when a constructor of it was cut off."""
    return UnknownV("a construction cut off") if isinstance(inst, InstanceObj) and inst.cut else inst
