"""The construction with every flag and string at its default (docs/analysis.md, "A flag's default").

The class analysed on its own holds each bool constructor flag undecided (flags.py), so a flag
that decides a layout (`dynamic_img_size=False` choosing a patch embedding's output format through
the arguments it builds it with) joins both layouts on every line after it: the rank is lost; and
each string default decides nothing (values.DefaultStrV), so a stem a string picks
(`deep_stem = 'deep' in stem_type`) has channels of either arm, and an activation named by one
(`act_layer='gelu'`, looked up in a registry) is no layer at all. The construction that keeps every
flag and every string at its default is one construction context more (built.py): the class's
instance with those decided and everything else as the generic instance has it (int defaults as
symbols, `None` defaults open), whose `forward` and parts run and are listed as
`CLASS.__init__:LINE`. As a factory's context it is never the line's own shape: it claims shapes
only for instances built with the flags and strings at their defaults (devicerun/builders.py
matches it to a build only when the build passes none of them another value).
"""
from __future__ import annotations

import ast
from typing import Callable

from ..shapes.shape import FALSE, TRUE
from ..shapes.values import BoolV, DefaultStrV, StrV, Value
from .built import MAX_CONTEXTS, _own_forward, run_in_context
from .defaults import open_default_nones
from .frames import BuiltContext, Frame, span_of
from .generic import construct, forget_state
from .objects import FuncObj, InstanceObj
from .optional_parts import open_optional_parts


def _at_default(v: Value) -> Value:
    if isinstance(v, DefaultStrV):
        return StrV(v.value)  # (a plain string: its comparisons and lookups are decided)
    return BoolV(TRUE if v.at_default else FALSE)


def has_flags(init: ast.FunctionDef) -> bool:
    """Whether `init` has a parameter whose default is `True`, `False` or a string."""
    a = init.args
    return any(isinstance(d, ast.Constant) and isinstance(d.value, (bool, str))
               for d in list(a.defaults) + [d for d in a.kw_defaults if d is not None])


def run_at_flag_defaults(it, init: FuncObj, param_value: Callable) -> None:
    """After `init`'s generic analysis: the construction context of its class (a module-level
    module with a `forward` in this file) built with every flag and string of `init` at its default."""
    cls = init.cls
    if it.as_built or cls is None or cls.node is None or "." in cls.qualname or not cls.is_module() \
            or not _own_forward(it, cls) or not has_flags(init.node):
        return
    runs = it.built_runs.get(cls, 0)
    if runs >= MAX_CONTEXTS:
        return
    it.built_runs[cls] = runs + 1
    inst = InstanceObj(cls, {}, span_of(init.node))
    if construct(it, init, inst, open_nones=False, flag=_at_default) == "raise":
        return
    open_optional_parts(inst, init, lambda i, o, make: construct(it, i, o, False, given=make, flag=_at_default))
    open_default_nones(init, inst)
    forget_state(cls, inst)
    fr = Frame({}, init.qualname, it.new_store(), init.globals, cls=cls, root=init.qualname)
    run_in_context(it, inst, fr, BuiltContext(f"{init.qualname}:{init.node.lineno}"), span_of(init.node), param_value)
