"""A flag's default is not a fact (docs/analysis.md, "A flag's default").

A constructor's bool default (`downsample: bool = True`) is one construction of many: the model
may build the class with the other value (timm's Swin stages: `downsample=i > 0`). The class
analysed on its own holds the flag as an undecided bool that remembers its default
(`BoolV.at_default`); `not`, `and` and `or` carry what they are with every flag at its default.

A decision such a value leaves undecided (an `if`, `a if c else b`, the later operands of `and`
and `or`) runs both arms, and their shapes are joined, so no shape shown is one arm's. The arm
that only the other value reaches runs with its errors not reported (`Frame.caught`, as each
option of a choice): it is code for constructions not in view, which may pass what that arm
rests on (a list of heads filled at run time), and the analysis with the default claims nothing
of it. The default's arm is judged as before: what fails there fails for every construction
that keeps the default. A quiet arm that fails at its inputs' ranks ends its path there: past
the `if`, the default arm's values alone (quiet_arm_ends).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Optional

from ..shapes.shape import neg
from ..shapes.values import BoolV, NoneV, TensorV, UnknownV, Value


def undecided_flag(default: BoolV) -> BoolV:
    """The flag whose default is `default` (a bool constant), as the class on its own holds it."""
    return BoolV(None, at_default=default.pred.is_true if default.pred is not None else None)


def at_default(v: Value) -> Optional[bool]:
    """`v`'s truth with every flag at its default; None: not known, or no flag decides it."""
    if isinstance(v, BoolV):
        if v.at_default is not None:
            return v.at_default
        if v.pred is not None and (v.pred.is_true or v.pred.is_false):
            return v.pred.is_true
    return None


def off_default_arm(v: Value) -> Optional[bool]:
    """Of an undecided test `v`, the arm (True: the body) that only a flag's other value takes."""
    if isinstance(v, BoolV) and v.pred is None and v.at_default is not None:
        return not v.at_default
    return None


def negated(v: Value, p) -> BoolV:
    """`not v`, `p` being `v`'s truth."""
    at = v.at_default if isinstance(v, BoolV) else None
    return BoolV(neg(p) if p is not None else None, at_default=None if at is None else not at)


def carried(out: Value, vals: list, is_and: bool) -> Value:
    """`out`, the value of an `and` (`or`) of `vals`, knowing what it is with the flags at their
    defaults when it is undecided (a bool, or the join of operands not understood, as
    `self.training and self.deep_supervision`) and some operand is a flag's."""
    if isinstance(out, BoolV) and (out.pred is not None or out.at_default is not None) or \
            not isinstance(out, (BoolV, UnknownV)) or \
            not any(isinstance(v, BoolV) and v.at_default is not None for v in vals):
        return out
    ats = [at_default(v) for v in vals]
    if (not is_and) in ats:  # one operand decides the whole: False for `and`, True for `or`
        at = not is_and
    elif all(a is is_and for a in ats):
        at = is_and
    else:
        return out
    return BoolV(None, out.implied if isinstance(out, BoolV) else None, at_default=at)


def flag_join(join: Callable, a: Value, b: Value, off: Optional[bool], facts=None) -> Value:
    """The join of `a` (the value after an undecided decision's true arm) and `b` (its false
    arm's); `off`: the arm only a flag's other value takes (off_default_arm). A tensor on one
    arm and `None` on the other is an optional tensor that knows which one the default gives, so
    a later `if self.q_bias is not None:` is a flag's decision too."""
    if off is not None:
        for t, none, none_arm in ((a, b, False), (b, a, True)):
            if isinstance(t, TensorV) and isinstance(none, NoneV):
                return replace(t, optional=True, none_at_default=none_arm is not off)
            if isinstance(none, NoneV) and not isinstance(t, NoneV):
                # a layer or None (`self.qkv = nn.Linear(...) if qkv_fused else None`): no value
                # is one or the other, so the default's, as before flags were undecided (a join
                # would be unknown, and every later call of it)
                return b if off else a
    return join([a, b], facts)


def is_none(v: Value, other: Value) -> Optional[BoolV]:
    """`v is None` (or `None is v`) for an optional tensor a flag chose: undecided, with what it
    is with the flags at their defaults; None when it is not such a test."""
    if isinstance(other, TensorV) and isinstance(v, NoneV):
        v, other = other, v
    if isinstance(v, TensorV) and v.optional and v.none_at_default is not None and isinstance(other, NoneV):
        return BoolV(None, at_default=v.none_at_default)
    return None


def arm_gets_on(dead: bool, died: bool, quiet: bool) -> bool:
    """Whether what an arm left in a list joins past the `if`: a quiet arm that failed still does
    (quiet_arm_ends: its failure may be the class's on its own), so a list past a flag's `if` is
    never the default arm's alone — `to_cat` after `if self.cls_token is not None:` is `[]` or
    `[cls]`, of unknown length (arm_lists.join_lists)."""
    return not dead and (quiet or not died)


def quiet_arm_ends(fr, died: bool, quiet: bool) -> bool:
    """Whether the quiet arm just run (`died`: its path failed) ends its path, so that what follows
    the `if` is the default arm's alone: it failed unpacking a tensor's shape into the wrong
    number of names (`B, H, W, C = x.shape` given a caller's rank-3 `x`), a failure of the
    inputs' ranks, which every construction shares. Any other failure there may rest on what
    the class on its own holds for its defaults only (a list of heads filled at run time), so
    that arm's values are still joined."""
    return quiet and died and fr.died_of == "rank"


def quietly(fr, quiet: bool, run: Callable):
    """`run()`, with its errors not reported when `quiet` (an arm only a flag's other value takes)."""
    if not quiet:
        return run()
    fr.died_of = ""  # (what ends the arm, quiet_arm_ends)
    fr.caught += 1
    try:
        return run()
    finally:
        fr.caught -= 1
