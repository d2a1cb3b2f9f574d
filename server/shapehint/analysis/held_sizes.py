"""Sizes the generic instance holds in its attributes, printed under the attribute's name.

A width computed through a float of unknown value (`self.width = round_to(64 * width_mult, 8)`,
whose rounding helper adds the divisor on one path) is some int: the analysis gives it a symbol
of its own, which every layer built from it shares, so consecutive layers still agree — but it
prints as `?`, and the shapes after it say nothing a reader (or a run's bindings) can check.

In a method of the class other than `__init__`, `self` is the generic instance as constructed
(`generic.generic_instance`), so a symbol the analysis made that the instance holds as an
attribute is that attribute's value there, and prints as `self.width`. Only where that stays
true: an attribute no method of the class or its bases but `__init__` assigns (a plain value
another method assigns is forgotten anyway: `generic.forget_state`), one name per symbol.
Symbols of the program's own names (parameters, configuration attributes) keep them. The
rename is the method's own (`sink.renames_of`): other instances of the class, built elsewhere,
hold symbols of their own, which it never names."""
from __future__ import annotations

from ..shapes.expr import Expr
from ..shapes.values import IntV
from .objects import InstanceObj
from .reconfiguration import _methods, self_targets


def name_held_sizes(it, qualname: str, me: str, inst) -> None:
    """Rename, in `qualname`'s records, the fresh symbols `inst`'s attributes hold to `<me>.<attr>`."""
    if not isinstance(inst, InstanceObj):
        return
    held = [(k, next(iter(v.expr.symbols()))) for k, v in inst.attrs.items()
            if isinstance(v, IntV) and len(v.expr.symbols()) == 1]
    held = [(k, s) for k, s in held if inst.attrs[k].expr == Expr.sym(s) and it.env.is_fresh(s)]
    if not held:
        return
    assigned = _assigned_after_init(inst.cls)
    table = it.sink.renames_of(qualname)
    for k, s in held:
        name = f"{me}.{k}"
        if k in assigned or s in table or name in table.values():
            continue
        table[s] = name


def _assigned_after_init(cls) -> frozenset:
    cached = getattr(cls.node, "_shapehint_assigned_after_init", None)  # trees are never changed
    if cached is None:
        cached = frozenset().union(*(self_targets(fn) for name, fn in _methods(cls) if name != "__init__"))
        if cls.node is not None:
            cls.node._shapehint_assigned_after_init = cached
    return cached
