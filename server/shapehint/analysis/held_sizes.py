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
hold symbols of their own, which it never names.

A width no attribute of the instance holds may be held by one of its parts: the layer built from
it stores its constructor's size (`self.exp = nn.Conv2d(c, round(c * r), 1)`: `self.exp.out_channels`),
or a module of the program holds it (`self.block.conv.out_channels`, a few levels down). Torch
layers store only some sizes as given (`nn.LayerNorm(d).normalized_shape` is `(d,)`), so only the
ones in `STORED` name a width; a path's parts obey the same rule as the instance's attributes.
The instance's own attributes name a symbol first, then the shortest path."""
from __future__ import annotations

import ast

from ..shapes.expr import Expr
from ..shapes.values import IntV, ModuleV
from .layercfg import config_attr
from .objects import InstanceObj, MaybeNoneV, OpaqueV
from .reconfiguration import _methods, self_targets


# constructor sizes a torch layer stores as the same int attribute (`nn.Conv2d(..).out_channels`)
STORED = frozenset({"in_channels", "out_channels", "in_features", "out_features", "num_features",
                     "num_channels", "num_groups", "num_embeddings", "embedding_dim", "embed_dim",
                     "num_heads", "input_size", "hidden_size"})
MAX_DEPTH = 3  # parts of parts of parts: `self.block.conv.out_channels`


def name_held_sizes(it, qualname: str, me: str, inst, node=None) -> None:
    """Rename, in `qualname`'s records, the fresh symbols `inst`'s attributes (or its parts') hold
    to `<me>.<attr>` (`<me>.<part>.<attr>`); so too a constructor's symbol that a local of the
    method (`node`) is named like (`batch, dim, c = x.shape` where `self.dim = dim`): printed
    bare it would read as the local, so it printed `?` (executor.shadow)."""
    if not isinstance(inst, InstanceObj):
        return
    table = it.sink.renames_of(qualname)
    for path, v in sorted(_held(inst, me, MAX_DEPTH, set()), key=lambda pv: pv[0].count(".")):
        s = next(iter(v.expr.symbols()))
        if s in table or path in table.values() or not it.env.is_fresh(s):
            continue
        table[s] = path
    mine = _locals(node)
    if mine:
        assigned = _assigned_after_init(inst.cls)
        for k, v in sorted(inst.attrs.items()):
            s = v.path if isinstance(v, OpaqueV) and type(v) is OpaqueV else \
                next(iter(v.expr.symbols())) if _one_symbol(v) else None
            path = f"{me}.{k}"
            if s in mine and k not in assigned and s not in table and path not in table.values():
                table[s] = path


def _locals(node) -> frozenset:
    """The names `node`'s body binds as its own (not those of functions or classes inside it),
    less its parameters (a parameter's own symbol may be named like it)."""
    if node is None:
        return frozenset()
    cached = getattr(node, "_shapehint_locals", None)  # trees are never changed
    if cached is None:
        a = node.args
        me = (a.posonlyargs + a.args)[0].arg if a.posonlyargs + a.args else None
        out, todo = set(), list(node.body)
        while todo:
            n = todo.pop()
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if _mirror(n, me):  # `dim = self.dim` holds the attribute's own symbol: it keeps its name
                continue
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
            todo.extend(ast.iter_child_nodes(n))
        params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p is not None}
        cached = node._shapehint_locals = frozenset(out - params)
    return cached


def _mirror(n, me) -> bool:
    """`name = self.name`: a local that copies the instance's attribute it is named after."""
    return (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
            and isinstance(n.value, ast.Attribute) and n.value.attr == n.targets[0].id
            and isinstance(n.value.value, ast.Name) and n.value.value.id == me)


def _held(inst: InstanceObj, prefix: str, depth: int, seen: set):
    """(path, value) of the one-symbol ints `inst` and its parts hold, `depth` levels down; only
    attributes no method but `__init__` assigns (their value is the constructor's everywhere)."""
    if id(inst) in seen:
        return
    seen.add(id(inst))
    assigned = _assigned_after_init(inst.cls)
    for k, v in inst.attrs.items():
        if k in assigned:
            continue
        path = f"{prefix}.{k}"
        if isinstance(v, MaybeNoneV) and v.given is not None:
            v = v.given  # (a part or None: its sizes occur only where it is the part)
        if _one_symbol(v):
            yield path, v
        else:
            yield from _part(v, path, depth, seen)


def _part(v, path: str, depth: int, seen: set):
    """The sizes part `v` (at `path`) holds: a torch layer's stored sizes, a module of the
    program's attributes, or, for a container whose children are known by position (`Sequential`
    of layers, `ModuleList`), each child's under `path[i]`, the index `Sequential` reads them by."""
    if depth <= 1:
        return
    if isinstance(v, ModuleV) and v.children is None and v.elem is None:
        for key in sorted(STORED & v.cfg.keys()):
            got = config_attr(v, key)
            if _one_symbol(got):
                yield f"{path}.{key}", got
    elif isinstance(v, ModuleV) and v.children is not None and v.names is None and v.head is None:
        for i, child in enumerate(v.children):
            yield from _part(child, f"{path}[{i}]", depth - 1, seen)
    elif isinstance(v, InstanceObj):
        yield from _held(v, path, depth - 1, seen)


def _one_symbol(v) -> bool:
    if not isinstance(v, IntV) or len(v.expr.symbols()) != 1:
        return False
    return v.expr == Expr.sym(next(iter(v.expr.symbols())))


def _assigned_after_init(cls) -> frozenset:
    cached = getattr(cls.node, "_shapehint_assigned_after_init", None)  # trees are never changed
    if cached is None:
        cached = frozenset().union(*(self_targets(fn) for name, fn in _methods(cls) if name != "__init__"))
        if cls.node is not None:
            cls.node._shapehint_assigned_after_init = cached
    return cached
