"""Parts of the generic instance that only its defaults leave out.

The generic instance (`generic.generic_instance`) is built by running `__init__` with its
defaults. A part the constructor builds only when an argument is given
(`self.key = nn.Linear(k_dim, d) if k_dim is not None else None`) is then `None` — the default's
choice, not a fact: callers that pass `k_dim` get the layer, and a method that gathers the parts
present (`[k for k in (ka, kb) if k is not None]`) would see none and fail
(`torch.cat` of an empty list) for every input. Such an attribute is unknown in the generic
instance, so the method runs both sides of `if self.key is not None`.

A tensor built only when an argument is given (`self.gamma = nn.Parameter(torch.ones(dim)) if
init_values is not None else None`, a layer scale) is the tensor that construction builds, as an
optional tensor whose default is `None` (values.TensorV.optional): `if self.gamma is not None:`
is then a decision of the defaults (flags.py), whose arms are both run and joined, and the arm
that reads it (`x = self.gamma * x`) keeps its shape. Before, the unknown attribute made that
arm's value unknown, and the join with it every value after. For that, the construction that
tells the parts apart is given arguments that are not `None` (`GivenV`: `if init_values is not
None` takes its body there); when every path of it then raises (`if a is not None and b is not
None: raise`), it is made again with arguments that may be `None`, as before.
"""
from __future__ import annotations

from dataclasses import replace

from ..shapes.values import NoneV, TensorV, UnknownV
from .objects import GivenV, InstanceObj, OpaqueV


def open_optional_parts(inst: InstanceObj, init, construct) -> None:
    """`construct(init, other, make)` builds `other` with each `None` default given (`make(name)`:
    a value of its name); an attribute `None` in `inst` that is something else there is a part a
    constructor call builds: unknown in `inst` (a tensor: optional, see above). One that is the
    argument itself (`self.layer_idx = layer_idx`) stays the default's `None`: whether defaults
    are facts is the calling contexts' question, not this one."""
    nones = [n for n, v in inst.attrs.items() if isinstance(v, NoneV)]
    if not nones or not any(isinstance(v, NoneV) for v in init.defaults.values()):
        return
    other = InstanceObj(inst.cls, {}, None)
    if construct(init, other, GivenV) == "raise":
        other = InstanceObj(inst.cls, {}, None)
        if construct(init, other, OpaqueV) == "raise":
            return
    for name in nones:
        v = other.attrs.get(name)
        if v is None or isinstance(v, NoneV) or _is_argument(v, init):
            continue
        inst.attrs[name] = replace(v, optional=True, none_at_default=True) if isinstance(v, TensorV) \
            else UnknownV(f"self.{name}")


def _is_argument(v, init) -> bool:
    """The value standing for a given `None`-defaulted argument, stored as it came."""
    return isinstance(v, OpaqueV) and isinstance(init.defaults.get(v.path), NoneV)
