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
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.values import ModuleV, NoneV, Value
from .choices import choice_of
from .kind_narrowing import narrowed_by_kind, run_bound
from .objects import ChoiceV, InstanceObj, MaybeNoneV
from .optional_args import none_test


def join_maybe_none(vals: list) -> Optional[MaybeNoneV]:
    """The join of `vals` when some are None and the rest one object (or a few: a choice)."""
    if not any(isinstance(v, (NoneV, MaybeNoneV)) for v in vals):
        return None
    objs = [v.given if isinstance(v, MaybeNoneV) else v for v in vals if not isinstance(v, NoneV)]
    if not objs or not all(_followed(o) for o in objs):
        return None
    given = choice_of(objs)
    return MaybeNoneV("None on some paths", given) if given is not None else None


def _followed(v: Value) -> bool:
    return isinstance(v, (InstanceObj, ModuleV)) or \
        isinstance(v, ChoiceV) and all(isinstance(o, (InstanceObj, ModuleV)) for o in v.options)


def narrowed(test, when: bool, fr, run, keep: bool = False):
    """`run()` as the arm of `test` taken when it is `when`: where the test is `name is (not)
    None` on a MaybeNoneV, with the name bound to what it is on that arm — after it too when
    `keep` (a statement's arm, whose names the `if` joins), else put back (an expression's arm
    binds no name)."""
    got = none_test(test)
    v = fr.env.get(got[0]) if got is not None else None
    if not isinstance(v, MaybeNoneV):
        held = _attribute_test(test, fr)
        if held is not None:
            return _run_attribute_bound(*held, when, run)
        return narrowed_by_kind(test, when, fr, run, keep)
    name, given_when_true = got
    return run_bound(fr, name, v.given if when == given_when_true else NoneV(), run, keep)


def _attribute_test(test, fr) -> Optional[tuple]:
    """`obj.attr is (not) None` on an instance's MaybeNoneV attribute (`if self.conv_dw is not
    None:` where `__init__` built the layer only under an undecided condition): (the instance,
    the attribute, its value, whether the test is true when it is given), else None."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.left, ast.Attribute) and isinstance(test.left.value, ast.Name)
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        return None
    obj = fr.env.get(test.left.value.id)
    v = obj.attrs.get(test.left.attr) if isinstance(obj, InstanceObj) else None
    if not isinstance(v, MaybeNoneV):
        return None
    return obj, test.left.attr, v, isinstance(test.ops[0], ast.IsNot)


def _run_attribute_bound(obj: InstanceObj, attr: str, v: MaybeNoneV, given_when_true: bool, when: bool, run):
    """`run()` with the attribute read as what it is on that arm, and as it was after it (the
    `if` changes no attribute; one the arm writes keeps what the arm wrote)."""
    arm = v.given if when == given_when_true else NoneV()
    obj.attrs[attr] = arm
    try:
        return run()
    finally:
        if obj.attrs.get(attr) is arm:
            obj.attrs[attr] = v
