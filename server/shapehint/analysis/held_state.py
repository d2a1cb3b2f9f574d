"""What a model holds, for running its methods again after its `forward` (own_methods.py).

- The names its sizes are in (`held_names`): a method's int argument runs again as a symbol of the
  parameter's name only where the model holds no size of that name, or the run would take the two
  for one.
- What its `forward` wrote (`snapshot` before it, `reads_written` after): a method run again after
  `forward` sees the state `forward` left (a counter it bumped, a cache it filled), which the
  method's real call, in the middle of `forward`, may not have seen (`self.calls > 1` taken where
  the real call had 1). Such a method is not run again when it (or a method or property of the
  model it reads) reads an attribute of the model `forward` wrote; nothing is, when `forward`
  wrote into another object the model holds (a block's cache its methods may read through it).
The search is bounded (MAX_HELD values); past it, nothing runs again as a symbol or at all.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.expr import Expr
from .frames import Frame
from .objects import ClassObj, FuncObj, InstanceObj, OpaqueV

MAX_HELD = 20000  # values of a model searched


def _reachable(model) -> Optional[list]:
    """The values `model` holds, itself first (its code and the frames that wrote it aside);
    None past MAX_HELD."""
    out, seen, todo = [], set(), [model]
    while todo:
        v = todo.pop()
        if id(v) in seen or isinstance(v, (ast.AST, ClassObj, FuncObj, Frame)):
            continue
        seen.add(id(v))
        if len(seen) > MAX_HELD:
            return None
        out.append(v)
        if isinstance(v, (Expr, str)):
            continue
        if isinstance(v, dict):
            todo.extend(v.values())
        elif isinstance(v, (list, tuple, set, frozenset)):
            todo.extend(v)
        elif type(v).__module__.startswith("shapehint") and hasattr(v, "__dict__"):
            todo.extend(vars(v).values())
    return out


def held_names(model) -> Optional[set]:
    """The names of the symbols (and opaque values, and any string) the values `model` holds
    are in; None when they are too many to search."""
    values = _reachable(model)
    if values is None:
        return None
    out: set = set()
    for v in values:
        if isinstance(v, Expr):
            out |= v.symbols()
        elif isinstance(v, OpaqueV):
            out.add(v.path)
        elif isinstance(v, str):
            out.add(v)
    return out


def snapshot(model) -> Optional[dict]:
    """id(instance) -> (the instance, {attribute: the value it holds}) for `model` and each
    instance it holds; None when they are too many to search."""
    values = _reachable(model)
    if values is None:
        return None
    return {id(v): (v, dict(v.attrs)) for v in values if isinstance(v, InstanceObj)}


def written_since(model, before: Optional[dict]) -> Optional[set]:
    """The attributes of `model` written since `before` (a `snapshot`); None when that is not
    known, or when another instance it held then was written."""
    if before is None:
        return None
    out: set = set()
    for obj, attrs in before.values():
        now = obj.attrs
        changed = {k for k in set(attrs) | set(now) if attrs.get(k) is not now.get(k)}
        if changed and obj is not model:
            return None
        out |= changed
    return out


def reads_written(model, f: FuncObj, written: Optional[set]) -> bool:
    """Whether method `f` of `model` (or a method or property of the model it reads through its
    receiver, in turn) may read an attribute in `written` (None: any)."""
    if written is None:
        return True
    if not written:
        return False
    todo, seen = [f], set()
    while todo:
        g = todo.pop()
        if id(g) in seen or g.node is None:
            continue
        seen.add(id(g))
        a = g.node.args
        params = a.posonlyargs + a.args
        if g.cls is None or not params:
            continue
        me = params[0].arg
        for n in ast.walk(g.node):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == me:
                if n.attr in written:
                    return True
                m = model.cls.lookup(n.attr)
                if isinstance(m, FuncObj):
                    todo.append(m)
    return False
