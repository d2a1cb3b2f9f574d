"""Values that are one of several known callables (issue 28, cause 5): a registry — a dict of
layer classes or functions — read with a key the analysis does not know (`LAYERS[cfg.kind]`,
`REGISTRY.get(name, fallback)`), and the arms of an undecided `if` that bound different ones.
Each is an `objects.ChoiceV`; a call of it calls every option (calls.py) and joins the
results, so where the options agree on shapes that is the shape and where they differ nothing
is claimed. Only values whose call the analysis can follow are options: a choice with anything
else among them stays unknown, never a guess."""
from __future__ import annotations

from typing import Optional

from ..shapes.shape import conj, neg
from ..shapes.values import DefaultStrV, DictV, ExtRef, ModuleV, Value
from .objects import BoundMethod, ChoiceV, ClassObj, FuncObj, InstanceObj, KeepsShapeV, PartialV

MAX_OPTIONS = 8  # past this many, calling each would cost more than the answer is worth


def is_option(v: Value) -> bool:
    if isinstance(v, ExtRef):
        return v.path.startswith("torch.")  # a torch layer or function; another library's is unknown
    return isinstance(v, (FuncObj, ClassObj, InstanceObj, ModuleV, PartialV, BoundMethod, ChoiceV, KeepsShapeV))


def _same(a: Value, b: Value) -> bool:
    """One option: the same object, or torch's object read by one path (two tables that both
    hold `nn.Hardswish` — a registry picked by a mode flag the analysis cannot decide — give one
    class, whose `isinstance` and call are then decided as that class's)."""
    return a is b or type(a) is ExtRef and type(b) is ExtRef and a.path == b.path


def choice_of(vals: list) -> Optional[Value]:
    """The value that is one of `vals`: the one value when they are all it, a ChoiceV when each
    is an option, else None."""
    flat: list = []
    conds: list = []
    for v in vals:
        if not is_option(v):
            return None
        for i, o in enumerate(v.options if isinstance(v, ChoiceV) else (v,)):
            if not any(_same(o, f) for f in flat):
                flat.append(o)
                conds.append(v.conds[i] if isinstance(v, ChoiceV) and v.conds else None)
    if not flat or len(flat) > MAX_OPTIONS:
        return None
    if len(flat) == 1:
        return flat[0]
    # choices of one class parameter's (class_params.py), on paths that built them apart: still
    # its choice, each option under the condition it was built under
    name = vals[0].name if isinstance(vals[0], ChoiceV) else None
    if name is not None and all(isinstance(v, ChoiceV) and v.name == name and v.conds for v in vals):
        return ChoiceV(tuple(flat), tuple(conds), name)
    return ChoiceV(tuple(flat))


def closed_values(d: DictV) -> Optional[list]:
    """The values a dict read with a key not known may give, when the dict is closed (every key
    known, and no code out of its module's order writes it: sealed_dicts.mark_written)."""
    if d.open or d.written_elsewhere or not d.items:
        return None
    return list(d.items.values())


def registry_choice(d: DictV, extra: tuple = ()) -> Optional[Value]:
    """A dict read with a key not known (plus `extra`, `.get`'s fallback): one of its values,
    when the dict is closed (closed_values) and each value is an option."""
    values = closed_values(d)
    return None if values is None else choice_of(values + list(extra))


def replaced_default_item(d: Value, key: Value) -> Optional[Value]:
    """`d[name]` where `name` is a string default (values.DefaultStrV) that `d` lacks: on the path
    that reads it, a caller replaced the default (the default would raise there, as it does where
    an `if name in ME_TABLE:` arm is taken for another key), and the read succeeds only with one of
    `d`'s keys: one of its values, when the dict is closed (registry_choice)."""
    if isinstance(d, DictV) and isinstance(key, DefaultStrV) and key.value not in d.items:
        return registry_choice(d)
    return None


def conditioned(joined: Value, a: Value, b: Value, test) -> Value:
    """`joined`, the join of `a` (what an undecided test's true arm left) and `b` (its false
    arm's): when a choice, each option with a condition that holds wherever it is taken — `test`
    for `a`'s, its negation for `b`'s, with what a choice among them knew —, so the join of
    their calls' results writes a size alike where an option's condition proves it equal to
    another's (arm_alignment.aligned_options): the shortcut built only where `cin != cout or
    stride != 1`, the identity elsewhere, give one size on both paths."""
    if not isinstance(joined, ChoiceV) or test is None:
        return joined
    conds = []
    for o in joined.options:
        ca, cb = _within(a, o), _within(b, o)
        if cb is _ABSENT and ca is not _ABSENT:
            conds.append(test if ca is None else conj(test, ca))
        elif ca is _ABSENT and cb is not _ABSENT:
            conds.append(neg(test) if cb is None else conj(neg(test), cb))
        else:
            conds.append(None)  # (on both arms, or neither: no condition known)
    return ChoiceV(joined.options, tuple(conds), joined.name)


_ABSENT = object()


def _within(v: Value, o: Value):
    """The condition under which `v` is `o` (None: whenever `v` is taken); _ABSENT: never."""
    if _same(v, o):
        return None
    if isinstance(v, ChoiceV):
        for i, x in enumerate(v.options):
            if _same(x, o):
                return v.conds[i] if v.conds else None
    return _ABSENT
