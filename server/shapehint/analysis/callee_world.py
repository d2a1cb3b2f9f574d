"""What a function of another module can reach besides its arguments (issue 23): the writable
objects (instances, layers, lists, dicts) its globals lead to, through the functions, classes,
modules and imports found there, recursively.

The any-caller memo (anycaller.py) answers a repeat of a helper while nothing the helper can
read was written since the call it remembers. Its arguments' reach settles that for objects
made outside module code; but once code has written to something module code made (a registry
dict's `update`, `Interp.global_mutations`), any object may hang from a module's globals, so
it refused every repeat after a write. transformers' base constructors write two attention
registries at every construction, and the environment checks they call (which read no
registry) then ran in full each time: a third of a file's steps.

`World.reach(it, f)` is the set of ids of the writable objects reachable from `f`'s globals
and defaults, as the analysis stands now, and whether a tensor of unknown rank is among what
they hold. A write to none of them since a call cannot change what `f` reads, nor can a rank
learned since (`Environment.stars`) when no tensor there has an unknown rank. Reachability changes only by a write to a reachable object (then that object,
still reachable from where the path to it starts, is in the set), by module code (which
rebinds globals: `Interp.module_runs`), or by an import resolved into its holder
(`Interp.resolve_import` rebinds a name without a write). The last is covered by following a
not yet resolved import to the module it names when that module is loaded (the whole module:
the name may be a re-export or a submodule); a module not loaded yet would run its body to
resolve it, which `module_runs` notes. So a set stays right until one of its own objects is
written or a module body runs; `World` keeps it until then.

Attributes of classes are set only by class bodies (an assignment to `Cls.x` writes nothing
the analysis follows), and a module's globals only by its body or a resolved import, so neither
needs a write of its own to be noticed.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import Shape
from ..shapes.values import (BoolV, DtypeV, EllipsisV, ExtRef, FloatV, IntV, NoneV, StarSizeV, StrV, TensorV,
                             UnknownV)
from .callmemo import WRITABLE
from .objects import BuiltinFn, ClassObj, FuncObj, LazyImport, ModuleNS, OpaqueV, ShapeAliasV, UnionAliasV

MAX_PARTS = 200_000  # parts visited at most: past it, the world is taken as unknown (no answer from the memo)

# values that hold no object a write can change (a tensor's shape, a number, a name outside)
_LEAVES = frozenset((int, float, str, bool, bytes, type(None), IntV, FloatV, BoolV, StrV, NoneV, EllipsisV,
                     DtypeV, ExtRef, OpaqueV, UnknownV, BuiltinFn, UnionAliasV))
_SHAPED = frozenset((TensorV, StarSizeV))  # leaves too, but a shape may hold a segment of unknown rank
_SKIPPED = (ast.AST, Expr, Shape)  # parts of a value that are code or shapes, never objects


class World:
    """The reach of each remembered callee, kept while it stays right (one per AnyCallerMemo)."""

    def __init__(self):
        # id(FuncObj) -> [FuncObj, (set of ids, unknown rank held) | None, mutation log position, module runs]
        self._held: dict = {}
        self.computed = 0  # times a reach was walked (a debug counter for tests and profiles)

    def reach(self, it, f: FuncObj) -> Optional[tuple]:
        """(ids of the writable objects `f` can reach from its globals and defaults, whether a
        tensor of unknown rank is among them), or None: too many to say."""
        held = self._held.get(id(f))
        log = it.mutation_log
        if held is not None and held[3] == it.module_runs:
            got = held[1]
            if got is not None and not any(id(o) in got[0] for o in log[held[2]:]):
                held[2] = len(log)
                return got
        got = _walk(it.imports, [f])
        self.computed += 1
        self._held[id(f)] = [f, got, len(log), it.module_runs]
        return got


def _walk(importer, roots: list) -> Optional[tuple]:
    writable: set = set()
    visited: set = set()  # ids of the non-writable holders walked (globals, functions, classes)
    stack = list(roots)
    n = 0
    unknown_rank = False
    while stack:
        v = stack.pop()
        n += 1
        if n > MAX_PARTS:
            return None
        t = type(v)
        if t in _LEAVES:
            continue
        if t in _SHAPED:
            unknown_rank = unknown_rank or v.shape.star is not None
            continue
        if t is tuple or t is list:
            stack.extend(v)
            continue
        if id(v) in visited:
            continue
        visited.add(id(v))
        if isinstance(v, WRITABLE):
            writable.add(id(v))
        if t is dict:
            stack.extend(v.values())
        elif t is FuncObj:
            stack.append(v.globals)
            stack.append(v.defaults)
            stack.append(v.cls)
        elif t is ClassObj:
            stack.append(v.attrs)
            stack.extend(v.bases)
            stack.extend(d for _, d in v.fields)
        elif t is ModuleNS:
            stack.append(v.attrs)
        elif t is ShapeAliasV:
            stack.append(v.globals)
        elif t is LazyImport:
            stack.extend(_loaded(importer, v))
        elif isinstance(v, dict):  # an OpenKwargs, or a dict subclass of the analysis's
            stack.extend(v.values())
        else:  # an instance, a layer, a list, a partial, a bound method, a choice of callables, ...
            for part in _parts(v):
                if not isinstance(part, _SKIPPED):
                    stack.append(part)
    return writable, unknown_rank


def _parts(v) -> list:
    got = getattr(v, "__dict__", None)
    if got is not None:
        return list(got.values())
    return [getattr(v, s) for s in getattr(type(v), "__slots__", ()) if hasattr(v, s)]


def _loaded(importer, lazy: LazyImport) -> list:
    """The loaded modules an import not resolved yet may bind from (none loaded: resolving it
    runs a module body, or finds nothing)."""
    if importer is None or not hasattr(importer, "loaded"):
        return []
    out = []
    names = [lazy.module] if lazy.attr is None else \
        [lazy.module, f"{lazy.module}.{lazy.attr}" if lazy.module else lazy.attr]
    for name in names:
        path = importer.find_from(lazy.directory, name, lazy.level) if name else None
        if path is not None and path in importer.loaded:
            out.append(importer.loaded[path])
    return out
