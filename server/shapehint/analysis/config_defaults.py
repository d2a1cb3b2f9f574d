"""A model built with its configuration class at its defaults (docs/analysis.md, "A configuration's defaults").

A model class reads its sizes and switches from one configuration object (`def __init__(self,
config)`); the class analysed on its own holds that object unknown, so a switch it reads
(`isinstance(config.act, str)` choosing a registry's layer or the object itself) decides nothing
and every line after the layer it picks has no shape. Where the file names the configuration's
class (`config: SomeConfig` or `config_class = SomeConfig` in the class or a base), the flag
defaults' construction context (flag_defaults.py) is built with that class's instance whose
attributes copied from a parameter with a bool, string, float or int-below-1 default hold that
default; its sizes stay the generic instance's symbols (`config.hidden_size`). The context claims
shapes only for builds that pass such a configuration, built by a call of that class that leaves
each of those defaults as it is (devicerun/builders.py reads the same test).
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Optional

from .generic import generic_instance
from .objects import ClassObj, FuncObj, InstanceObj

PARAM = "config"  # (the one parameter name read: builders.py matches the same)


def _named_in(cls: ClassObj, globals_):
    """The class `cls`'s body names as its configuration's, evaluated in `globals_` (None when
    it is no class of a file seen), or False when it names none."""
    for st in cls.node.body if cls.node is not None else ():
        node = None
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.target.id == PARAM \
                and st.value is None:
            node = st.annotation
        elif isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and st.targets[0].id == PARAM + "_class":
            node = st.value
        if isinstance(node, ast.Name):
            v = globals_.get(node.id)
            return v if isinstance(v, ClassObj) and v.node is not None and not v.is_module() else None
    return False


def config_class_of(init: FuncObj) -> Optional[ClassObj]:
    """The configuration class `init`'s class (or a base of the same module) names, when `init`
    takes it as its parameter `config` with no default."""
    a = init.node.args
    params = (a.posonlyargs + a.args)[1:]
    if not any(p.arg == PARAM for p in params) or PARAM in init.defaults:
        return None
    todo, seen = [init.cls], set()
    while todo:
        c = todo.pop(0)
        if not isinstance(c, ClassObj) or id(c) in seen or c.module_path != init.cls.module_path:
            continue
        seen.add(id(c))
        found = _named_in(c, init.globals)
        if found is not False:  # (the first one named, as devicerun/builders.py reads it)
            return found
        todo.extend(c.bases)
    return None


def config_init(cfg: ClassObj) -> Optional[ast.FunctionDef]:
    init = cfg.attrs.get("__init__")
    return init.node if isinstance(init, FuncObj) else None


def decided_attrs(init: ast.FunctionDef, defaults: dict) -> dict:
    """attr -> default: the attributes the configuration's own `__init__` sets once, at its top
    level and after any call (its base's `__init__`), to a parameter of `defaults` (those the
    context decides) not written anywhere else in it."""
    body = init.body
    last_call = max((i for i, st in enumerate(body) if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)),
                    default=-1)
    written: dict = {}
    stored: set = set()
    for n in ast.walk(init):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
            written[n.attr] = written.get(n.attr, 0) + 1
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            stored.add(n.id)
    out = {}
    for st in body[last_call + 1:]:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Attribute) \
                and isinstance(st.targets[0].value, ast.Name) and st.targets[0].value.id == "self" \
                and isinstance(st.value, ast.Name) and st.value.id in defaults and st.value.id not in stored \
                and written[st.targets[0].attr] == 1:
            out[st.targets[0].attr] = defaults[st.value.id]
    return out


def config_at_defaults(it, cfg: ClassObj, decided: dict) -> InstanceObj:
    """The configuration instance of the context: the generic one (a copy), with `decided`
    (attr -> value) in place of its attributes."""
    inst = generic_instance(it, cfg, PARAM)
    inst = dataclasses.replace(inst, attrs=dict(inst.attrs))
    inst.attrs.update(decided)
    return inst
