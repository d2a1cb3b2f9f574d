"""The configurations a configuration builds for its parts (docs/analysis.md, "A configuration's
defaults").

A composite model's configuration builds one configuration per part in its `__init__`
(`self.text_config = TextConfig(**text_config)`, from a dict the caller passes or `{}`), and the
model hands each part its own (`TextModel(config.text_config)`). The generic configuration holds
whichever one its caller's arguments make: the part's generic instance, whose sizes are named by
the path a model reads them by (`config.text_config.hidden_size`) — never the part's defaults (a
model built with `text_config=dict(hidden_size=32)` is not 512 wide), and never unknown where the
dict spread into the call is (`**text_config` after an `update` from an open `**kwargs`).
"""
from __future__ import annotations

import ast
from typing import Callable

from ..frontend.walk import walk
from ..shapes.expr import Expr
from ..shapes.values import UnknownV
from .objects import ClassObj, FuncObj, InstanceObj, OpaqueV, config_named

MAX_DEPTH = 3  # (a configuration that nests its own class is read this many levels deep)


def built_parts(init: FuncObj) -> dict:
    """attribute -> configuration class, for each `self.NAME = SomeConfig(...)` that `init`'s body
    writes as the only write of `self.NAME` there, both names configuration names."""
    calls, seen = {}, set()
    for node in walk(init.node):
        if isinstance(node, ast.FunctionDef) and node is not init.node or isinstance(node, ast.Lambda):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                if t.attr in seen:
                    calls.pop(t.attr, None)
                    continue
                seen.add(t.attr)
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call) \
                        and isinstance(node.value.func, ast.Name):
                    calls[t.attr] = node.value.func.id
    out = {}
    for attr, fn in calls.items():
        cls = init.globals.get(fn)
        if isinstance(cls, ClassObj) and cls.node is not None and not cls.is_module() and config_named(cls.name) \
                and config_named(attr):
            out[attr] = cls
    return out


def hold_generic_parts(inst: InstanceObj, init: FuncObj, prefix: str, generic: Callable) -> None:
    """Each part `init` builds (`built_parts`) that `inst` holds as that class's instance, or as
    an unknown value, becomes `generic(cls, "prefix.attr")`."""
    if prefix.count(".") >= MAX_DEPTH:
        return
    for attr, cls in built_parts(init).items():
        v = inst.attrs.get(attr)
        if isinstance(v, UnknownV) or isinstance(v, InstanceObj) and v.cls is cls:
            inst.attrs[attr] = generic(cls, f"{prefix}.{attr}")


def note_built_with(f: FuncObj, args: list, env: dict) -> None:
    """A constructor `f` run on `args[0]` with a configuration part (`TextModel(config.text_config)`)
    marks the instance: its methods' own `config.hidden_size` is that part's
    `config.text_config.hidden_size` (`own_names`). Constructors that took others (a base built
    with another part) leave it marked with none."""
    if f.cls is None or f.node.name != "__init__" or not args or not isinstance(args[0], InstanceObj):
        return
    inst = args[0]
    for name, v in env.items():
        if v is not inst and isinstance(v, InstanceObj) and config_named(name) and v.held_by:
            mark = (name, v) if "." in v.held_by else (name, None)
            if inst.built_with and (inst.built_with[0] != mark[0] or inst.built_with[1] is not mark[1]):
                mark = ("", None)
            inst.built_with = mark


def own_names(f: FuncObj, args: list, env: dict, binding: dict) -> dict:
    """`binding` (the names a call's annotations bound, in the callee's names), with the sizes of
    the configuration part its receiver was built with (`note_built_with`) under the names the
    method's own analysis gives them: `config.hidden_size` for the caller's
    `config.text_config.hidden_size`."""
    inst = args[0] if f.cls is not None and args else None
    if not isinstance(inst, InstanceObj) or not inst.built_with or inst.built_with[1] is None:
        return binding
    param, part = inst.built_with
    out: dict = {}
    _sizes(part, part.held_by, param, out, set())
    return {**out, **binding} if out else binding


def _sizes(part: InstanceObj, path: str, own: str, out: dict, seen: set) -> None:
    if id(part) in seen:
        return
    seen.add(id(part))
    for name, v in part.attrs.items():
        if isinstance(v, OpaqueV) and v.path == f"{path}.{name}":
            out[f"{own}.{name}"] = Expr.sym(v.path)
        elif isinstance(v, InstanceObj) and v.held_by == f"{path}.{name}":
            _sizes(v, v.held_by, f"{own}.{name}", out, seen)
