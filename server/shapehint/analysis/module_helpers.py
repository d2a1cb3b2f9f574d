"""Calls in an imported module's top-level code of that module's own helpers, with constant
arguments (`gelu = get_activation("gelu")` after `ACT2FN = Table(...)`, issue 28 cause 5).

costs.py does not run a function called from an imported module's top-level code: most such
calls find out the environment (`logger = get_logger(__name__)`, `is_x_available()`), which no
shape depends on, and following them would load more modules within the import caps. A helper
of the same module given only constants is different: it reads that module's own tables, which
its top-level code has just built, and what it returns (a layer, a function) is what the other
modules' code calls later. Its value was unknown, and so was every entry of a table that used it
(an activation clipping `gelu(x)`), so the whole table was. It runs now, within the steps of a
top-level construction (TOP_LEVEL_CALL_STEPS): past them, or when any argument is not a
constant, or the function is another module's, the value stays unknown (never a guess)."""
from __future__ import annotations

from ..shapes.values import BoolV, DefaultStrV, FloatV, IntV, NoneV, StrV, Value


def constant(v: Value) -> bool:
    """Whether `v` is a literal the module wrote (a string, a known number, a bool, None)."""
    if isinstance(v, DefaultStrV):
        return False
    if isinstance(v, StrV):
        return v.value is not None
    if isinstance(v, IntV):
        return v.expr.value is not None
    if isinstance(v, FloatV):
        return v.value is not None
    if isinstance(v, BoolV):
        return v.pred is not None and (v.pred.is_true or v.pred.is_false)
    return type(v) is NoneV


def own_helper(f, fr, args: list, kwargs: dict) -> bool:
    """Whether calling `f` from the top-level frame `fr` calls that module's own function with
    constants only."""
    return f.cls is None and f.globals is fr.globals and \
        all(constant(a) for a in list(args) + list(kwargs.values()))
