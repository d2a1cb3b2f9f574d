"""Values that are one of several known callables (issue 28, cause 5): a registry — a dict of
layer classes or functions — read with a key the analysis does not know (`LAYERS[cfg.kind]`,
`REGISTRY.get(name, fallback)`), and the arms of an undecided `if` that bound different ones.
Each is an `objects.ChoiceV`; a call of it calls every option (calls.py) and joins the
results, so where the options agree on shapes that is the shape and where they differ nothing
is claimed. Only values whose call the analysis can follow are options: a choice with anything
else among them stays unknown, never a guess."""
from __future__ import annotations

from typing import Optional

from ..shapes.values import DictV, ExtRef, ModuleV, Value
from .objects import BoundMethod, ChoiceV, ClassObj, FuncObj, InstanceObj, KeepsShapeV, PartialV

MAX_OPTIONS = 8  # past this many, calling each would cost more than the answer is worth


def _is_option(v: Value) -> bool:
    if isinstance(v, ExtRef):
        return v.path.startswith("torch.")  # a torch layer or function; another library's is unknown
    return isinstance(v, (FuncObj, ClassObj, InstanceObj, ModuleV, PartialV, BoundMethod, ChoiceV, KeepsShapeV))


def choice_of(vals: list) -> Optional[Value]:
    """The value that is one of `vals`: the one value when they are all it, a ChoiceV when each
    is an option, else None."""
    flat: list = []
    for v in vals:
        if not _is_option(v):
            return None
        for o in (v.options if isinstance(v, ChoiceV) else (v,)):
            if not any(o is f for f in flat):
                flat.append(o)
    if not flat or len(flat) > MAX_OPTIONS:
        return None
    return flat[0] if len(flat) == 1 else ChoiceV(tuple(flat))


def registry_choice(d: DictV, extra: tuple = ()) -> Optional[Value]:
    """A dict read with a key not known (plus `extra`, `.get`'s fallback): one of its values,
    when the dict is closed (every key known) and each value is an option."""
    if d.open or not d.items:
        return None
    return choice_of(list(d.items.values()) + list(extra))
