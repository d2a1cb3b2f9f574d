"""What a migration's proposal holds for besides its tensors (`migrate` JSON's `assumed`,
`instances` and `holes`): the model the proposal was chosen with, told precisely enough that
it can be built and called.

- `assumed`: the values of the function's other inputs and its class's constructor parameters
  (`{"c": 8}`), of a configuration object's attributes (`{"config.hidden_size": 96}`), and of a
  list of sizes the body indexes (`{"window_size": [4, 4]}` from `window_size[0]`,
  `window_size[1]`) — the constructor's defaults where the facts allow (common.py).
- `instances`: an input the analysis stands in for with an instance of one of the file's classes
  (a configuration, `def __init__(self, config)`: generic.config_class or its annotation) ->
  that class's name; the object is that class built with its `assumed` attributes.
- `holes`: the value each shape hole (`__`) takes in the proposal, as `holes` JSON places it.
"""
from __future__ import annotations

import ast
import re

from .common import int_defaults

_ITEM = re.compile(r"^([A-Za-z_]\w*)\[(\d+)\]$")


def assumed_inputs(session, qualname: str, heads: list, model: dict, store, wide: int) -> dict:
    """{"assumed": ..., "instances": ..., "holes": ...} for the proposal `model` (symbol -> int)
    gives; `heads`: the names of the inputs besides its tensors (migrate._inputs_besides); `wide`:
    the size given to a configuration's int field that has no default and that nothing the
    function does constrains (any value passes; 1 builds layers of one channel)."""
    it = session.interp
    heads = set(heads)
    mentioned = set().union(*[f.pred.symbols() for f in store.facts])
    out = {n: v for n, v in sorted(model.items())
           if isinstance(v, int) and (n in heads or n.split(".")[0] in heads and n.count(".") == 1)
           and (n in mentioned or not has_default(session, qualname, n))}
    out.update(_lists(model, heads))
    instances = _instances(it, heads)
    for head, cls in instances.items():
        for name in _required_int_fields(cls):
            out.setdefault(f"{head}.{name}", wide)
    got = {"assumed": dict(sorted(out.items()))}
    if instances:
        got["instances"] = {h: c.name for h, c in sorted(instances.items())}
    holes = [{"line": s.line, "col": s.col, "value": model[n]} for n, s in it.env.holes.items()
             if isinstance(model.get(n), int)]
    if holes:
        got["holes"] = sorted(holes, key=lambda h: (h["line"], h["col"]))
    return got


def _lists(model: dict, heads: set) -> dict:
    """A list input read item by item (`wh, ww = window_size[0], window_size[1]`): the list of
    the items' values, when the model gives every item from the first to the last read."""
    items: dict = {}
    for n, v in model.items():
        m = _ITEM.match(n)
        if m and m.group(1) in heads and isinstance(v, int):
            items.setdefault(m.group(1), {})[int(m.group(2))] = v
    return {h: [got[i] for i in range(len(got))] for h, got in items.items() if set(got) == set(range(len(got)))}


def _instances(it, heads: set) -> dict:
    """head -> the class of the file whose generic instance stands for that input (one only)."""
    found: dict = {}
    for key in list(it.generic_instances):
        if isinstance(key, tuple) and key[1] in heads and not key[0].is_module():
            found.setdefault(key[1], set()).add(key[0])
    return {h: next(iter(cs)) for h, cs in found.items() if len(cs) == 1 and next(iter(cs)).node is not None}


def _required_int_fields(cls) -> list:
    """The `int` fields of a dataclass (or `int` parameters of a constructor) without a default:
    a configuration cannot be built without them (`depth: int`)."""
    node = cls.node
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None and cls.is_dataclass:
        return [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                and s.value is None and _is_int(s.annotation)]
    if init is None:
        return []
    a = init.args
    pos = (a.posonlyargs + a.args)[1:]
    without = pos[:len(pos) - len(a.defaults)] + [p for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
    return [p.arg for p in without if p.annotation is not None and _is_int(p.annotation)]


def _is_int(ann) -> bool:
    return isinstance(ann, ast.Name) and ann.id == "int" or isinstance(ann, ast.Constant) and ann.value == "int"


def has_default(session, qualname: str, name: str) -> bool:
    """Whether the function or its class's constructor gives `name` an int default (a config's
    attribute: its class's default) — as they say, not as other classes' parameters of that name."""
    fn = session.function(qualname)
    if "." in name:
        info = session.interp.env.dims.get(name)
        return info is not None and info.default is not None
    init = fn.cls.lookup("__init__") if fn is not None and fn.cls is not None else None
    for f in (fn, init):
        if f is not None and hasattr(f, "node") and name in int_defaults(f):
            return int_defaults(f)[name] is not None
    return False
