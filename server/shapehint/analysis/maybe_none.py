"""Objects that are None on some paths (issue 28, cause 7: caches).

`if use_cache: if cache is None: cache = Cache()` leaves `cache` None on one path and an object on
the other; `seen = cache.get_seq_length() if cache is not None else 0` then reads the object only
where it is there. Their join was unknown, so the arm that reads it learned nothing, and `seen` with
every position after it was lost. The join is now a `MaybeNoneV`: still unknown to everything else
(an `UnknownV`, so no test of it is decided: `cache is None` stays open, and so do truth and
`isinstance`), but holding the object; the arms of a `name is None` / `name is not None` test
(an `if`, a conditional expression) bind the name to the object where it is given and to None
where it is not. Only objects whose code the analysis follows (instances of the workspace's
classes, or a choice of them) are held; a tensor that may be None is TensorV.optional's business.

A value that is None or False (`is_updated = False`, then a dict's `.get(layer_idx)` of a dict of
Falses under an `isinstance` test: dicts.any_value) is a MaybeNoneV holding False (`join_falsy`):
still open to `is None`, but falsy whichever it is, so its truth is decided (compare.truth).
"""
from __future__ import annotations

from typing import Optional

from ..shapes.values import BoolV, ModuleV, NoneV, Value
from .choices import choice_of
from .kind_narrowing import narrowed_by_kind, run_bound
from .objects import ChoiceV, ClassObj, InstanceObj, MaybeNoneV
from .optional_args import attribute_none_test, none_test


def join_maybe_none(vals: list) -> Optional[MaybeNoneV]:
    """The join of `vals` when some are None and the rest one object (or a few: a choice)."""
    if not any(isinstance(v, (NoneV, MaybeNoneV)) for v in vals):
        return None
    objs = [v.given if isinstance(v, MaybeNoneV) else v for v in vals if not isinstance(v, NoneV)]
    if not objs or not all(_followed(o) for o in objs):
        return None
    given = choice_of(objs)
    return MaybeNoneV("None on some paths", given) if given is not None else None


def join_falsy(vals: list) -> Optional[Value]:
    """The join of `vals` when each is None or False, some of each: None or False."""
    def false(v):
        return isinstance(v, BoolV) and v.pred is not None and v.pred.is_false
    if not all(isinstance(v, NoneV) or false(v) or isinstance(v, MaybeNoneV) and false(v.given) for v in vals):
        return None
    given = next((v if isinstance(v, BoolV) else v.given for v in vals if not isinstance(v, NoneV)), None)
    if given is None:
        return None
    return MaybeNoneV("None or False", given) if any(not isinstance(v, BoolV) for v in vals) else given


def callee(fn: Value) -> Value:
    """What a call of `fn` calls: a MaybeNoneV's object (calling None raises, so every path past
    the call called the object: `self.bn(x)` in the arm of a test on another attribute,
    `if self.conv is not None: x = self.bn(self.conv(x))`), anything else itself."""
    return fn.given if isinstance(fn, MaybeNoneV) and fn.given is not None else fn


def read_through(v: Value, attr: str) -> Value:
    """The value whose `attr` is read: a MaybeNoneV's object where None has no such attribute
    (reading it raises, so every path past the read had the object: `cache.update(k, v)` after
    `cache = outer.inner if isinstance(outer, Outer) else outer`), anything else itself."""
    return v.given if isinstance(v, MaybeNoneV) and v.given is not None and not hasattr(None, attr) else v


def _followed(v: Value) -> bool:
    # (a class of the workspace too: `cls = Layer if flag else None` ... `if cls is not None: cls()`;
    # a torch layer built under an undecided condition: `self.conv = nn.Conv2d(...) if s > 1 else None`)
    kinds = (InstanceObj, ClassObj, ModuleV)
    return isinstance(v, kinds) or isinstance(v, ChoiceV) and all(isinstance(o, kinds) for o in v.options)


def narrowed(test, when: bool, fr, run, keep: bool = False, mutated=None):
    """`run()` as the arm of `test` taken when it is `when`: where the test is `name is (not)
    None` on a MaybeNoneV, with the name bound to what it is on that arm — after it too when
    `keep` (a statement's arm, whose names the `if` joins), else put back (an expression's arm
    binds no name). `obj.attr is (not) None` on an instance's MaybeNoneV attribute (a base's
    constructor given one argument or the other: `self.factory = factory`) reads the attribute as
    what it is on that arm, put back after it (`mutated`: the interpreter's journal of writes)."""
    got = none_test(test)
    v = fr.env.get(got[0]) if got is not None else None
    if got is None and mutated is not None:
        held = _held_attribute(test, fr)
        if held is not None:
            return _run_with_attribute(held, when, run, mutated)
    if not isinstance(v, MaybeNoneV):
        return narrowed_by_kind(test, when, fr, run, keep)
    name, given_when_true = got
    return run_bound(fr, name, v.given if when == given_when_true else NoneV(), run, keep)


def _held_attribute(test, fr) -> Optional[tuple]:
    """`obj.attr is (not) None` where `obj` names an instance whose `attr` is a MaybeNoneV:
    (instance, attr, the MaybeNoneV, whether the test is true when it is given)."""
    got = attribute_none_test(test)
    if got is None:
        return None
    obj = fr.env.get(got[0])
    v = obj.attrs.get(got[1]) if isinstance(obj, InstanceObj) else None
    return (obj, got[1], v, got[2]) if isinstance(v, MaybeNoneV) else None


def _run_with_attribute(held: tuple, when: bool, run, mutated):
    obj, attr, v, given_when_true = held
    arm = v.given if when == given_when_true else NoneV()
    mutated(obj)
    obj.attrs[attr] = arm
    try:
        return run()
    finally:
        if obj.attrs.get(attr) is arm:  # (an arm that wrote its own value keeps it, for the `if` to join)
            mutated(obj)
            obj.attrs[attr] = v
