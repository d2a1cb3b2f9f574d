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

from .choices import closed_values
from .config_bases import mro, present_names
from .config_derived import Derived
from .frames import Frame
from .generic import generic_instance
from .objects import ClassObj, FuncObj, InstanceObj, LazyImport
from ..shapes.values import DictV, FloatV, IntV
from .unnamed_modules import UNKNOWN_ATTRS

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


def class_chain(it, cfg: ClassObj) -> tuple:
    """(the class nodes of `cfg`'s method resolution order, whether all are seen, the functions a
    name of their code stands for): what config_bases.py reads their `__init__`s leave at their
    defaults."""
    def bases_of(c):
        bs = [b for b in c.bases if not (isinstance(b, ClassObj) and b.node is None and b.name == "object")]
        return bs if all(isinstance(b, ClassObj) and b.node is not None for b in bs) else None
    order = mro(cfg, bases_of)
    classes = order if order is not None else [cfg]
    scopes = {id(f.node): f.globals for c in classes for f in c.attrs.values()
              if isinstance(f, FuncObj) and f.node is not None}
    return [c.node for c in classes], order is not None, _resolver(it, scopes)


def _resolver(it, scopes: dict):
    """config_calls.Resolve over the analysis's globals: `scopes` maps each `def` node read so far
    to its module's globals (a function followed adds its own)."""
    def resolve(owner: ast.FunctionDef, name: str, item: bool) -> Optional[tuple]:
        g = scopes.get(id(owner))
        v = g.get(name) if g is not None else None
        if isinstance(v, LazyImport):
            v = it.resolve_import(g, name, v)
        values = (closed_values(v) if isinstance(v, DictV) else None) if item else [v]
        if values is None or not all(isinstance(f, FuncObj) and isinstance(f.node, ast.FunctionDef)
                                     and f.cls is None and f.closure is None for f in values):
            return None
        scopes.update({id(f.node): f.globals for f in values})
        return tuple(f.node for f in values)
    return resolve


def config_at_defaults(it, cfg: ClassObj, decided: dict) -> InstanceObj:
    """The configuration instance of the context: the generic one (a copy), with `decided`
    (attr -> value, or a derivation from the others: config_derived.py) in place of its
    attributes, and every attribute its classes may not set absent (config_bases.present_names,
    absent_attrs.py)."""
    inst = generic_instance(it, cfg, PARAM)
    closed = present_names(*class_chain(it, cfg))
    attrs = {k: v for k, v in inst.attrs.items() if closed is None or k != UNKNOWN_ATTRS}
    # (its constructor's `setattr` loop wrote only names `closed` holds: the build passes no other)
    inst = dataclasses.replace(inst, attrs=attrs, closed=closed)
    inst.attrs.update({k: v for k, v in decided.items() if not isinstance(v, Derived)})
    init = cfg.lookup("__init__")
    for k, v in decided.items():
        if isinstance(v, Derived) and isinstance(init, FuncObj):
            # (read after every constant is in place: the attributes it reads are final there)
            fr = Frame({"self": inst}, init.qualname, it.new_store(), init.globals, cls=cfg, record=False)
            got = it.eval(v.expr, fr)
            if isinstance(got, (IntV, FloatV)):
                inst.attrs[k] = got
    return inst
