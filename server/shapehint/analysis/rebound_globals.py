"""Module globals that a function rebinds through a `global` statement (`global W; W =
torch.zeros(4, 16)` in `reset()`), and an enclosing function's names a nested one rebinds through
`nonlocal` (`store_enclosing`), and class attributes a function stores (`C.W = ...`: `store_class`).

A function runs after any number of calls of any function, so past the module's top-level code
such a name holds its top-level value or anything the rebinding function stored: it is unknown
before any function's analysis (`forget_rebound`), as a list code out of order appends to is
(written_lists.py). The store itself (`store`) writes the module's name, never a local: read as
a local, every other function (and the rebinding one's callers, after the call) read the old
value, a wrong shape. What it writes is unknown too, as the store may lie in an arm not taken,
and the namespace outlives the call (the next function's analysis reads it): the rebinding
function reads the name back as unknown."""
from __future__ import annotations

import ast

from ..frontend.walk import walk
from ..shapes.values import UnknownV
from .objects import ClassObj

_KEY = "_shapehint_rebound"
_ATTRS_KEY = "_shapehint_rebound_attrs"
_GLOBALS_KEY = "_shapehint_has_global"


def forget_rebound(names: dict, tree: ast.Module, journal) -> None:
    """Each global `names` (a module's, its top-level code run) binds that one of its functions
    rebinds, unknown; so is each attribute of a class it binds that a function stores
    (`C.W = torch.zeros(4, 16)`, `cls.W = ...` in a classmethod). A rebinding noted in `journal`
    where any is forgotten: a call of the top-level code, which read the old value, and one of a
    function's analysis, which reads none, take other paths (`call_kinds`)."""
    forgot = False
    for name in rebound(tree):
        if name in names:
            names[name], forgot = UnknownV(name), True
    for cname, attr in rebound_attrs(tree):
        cls = names.get(cname)
        if isinstance(cls, ClassObj) and cls.node is not None:
            store_class(cls, attr)
            forgot = True
    if forgot:
        journal.note("rebind")


def store_class(cls, attr: str) -> None:
    """`C.attr = ...` of a class of the program: every instance and function reads it, at any
    point after the store, so unknown (read as the class body's value, it claimed the old shape)."""
    cls.attrs[attr] = UnknownV(f"{cls.name}.{attr}")


def store(journal, fr, name: str) -> None:
    """`name = ...` in a function that declared `global name` (`fr.declared`)."""
    fr.globals[name] = UnknownV(name)
    journal.note("rebind")


def store_enclosing(fr, name: str) -> bool:
    """`name = ...` in a nested function that declared `nonlocal name` (`fr.nonlocals`), called in
    view of its `def` (closures.py: the enclosing call's environment, live): the enclosing
    function's name unknown — read as a local, the enclosing function read its old value after
    the call. False where no enclosing environment holds it (the nested function's own analysis
    reads none): a local then."""
    for scope in fr.closure.maps if fr.closure is not None else ():
        if name in scope:
            scope[name] = UnknownV(name)
            return True
    return False


def call_kinds(journal, kinds: tuple) -> tuple:
    """`kinds` (reconfiguration.call_kinds, a call's arguments) with the rebindings made before
    the call (of a global, a class attribute, a module table a function writes — interp.mutated —,
    and their forgetting past the top-level code): calls with alike arguments, one before and one
    after `reset()`, read other values of the global, so the one that lost a record took no path
    the other observed (sink._value)."""
    n = journal.count("rebind")
    return kinds + (f"rebound:{n}",) if n else kinds


def rebound_attrs(tree: ast.Module) -> frozenset:
    """(name, attribute) of the stores `name.attribute = ...` in the functions of `tree`, a
    classmethod's `cls.attribute` under its class's name."""
    cached = getattr(tree, _ATTRS_KEY, None)  # trees are never changed
    if cached is None:
        cached = _scan(tree)[0]
    return cached


def _scan(tree: ast.Module) -> tuple:
    """(rebound_attrs, whether any `global` statement occurs) of `tree`, in one pass over its
    nodes, both kept on the tree: every imported module is read for both, and a walk of each
    function's subtree on its own (a method's, then again its class's) cost a fiftieth of
    `check`'s CPU."""
    out: set = set()
    has_global = False
    todo = [(tree, False)]  # (node, inside a function: under a `def`, its signature included)
    pop, push = todo.pop, todo.append
    while todo:
        n, inside = pop()
        if isinstance(n, ast.Attribute):
            if inside and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name):
                out.add((n.value.id, n.attr))
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside = True
        elif isinstance(n, ast.ClassDef):
            for fn in n.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.args and any(
                        isinstance(d, ast.Name) and d.id == "classmethod" for d in fn.decorator_list):
                    me = fn.args.args[0].arg
                    out |= {(n.name, a) for name, a in _attr_stores(fn) if name == me}
        elif isinstance(n, ast.Global):
            has_global = True
        for field in n._fields:
            v = getattr(n, field, None)
            if isinstance(v, ast.AST):
                push((v, inside))
            elif isinstance(v, list):
                for item in v:
                    if isinstance(item, ast.AST):
                        push((item, inside))
    got = (frozenset(out), has_global)
    setattr(tree, _ATTRS_KEY, got[0])
    setattr(tree, _GLOBALS_KEY, has_global)
    return got


def _attr_stores(fn) -> set:
    return {(n.value.id, n.attr) for n in walk(fn) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
            and isinstance(n.value, ast.Name)}


def rebound(tree: ast.Module) -> frozenset:
    """Names a function of `tree` (a method too) declares `global` and stores or deletes."""
    cached = getattr(tree, _KEY, None)  # trees are never changed
    if cached is None:
        has_global = getattr(tree, _GLOBALS_KEY, None)
        if has_global is None:
            has_global = _scan(tree)[1]
        out: set = set()
        if has_global:  # (most modules have none)
            for fn in walk(tree):
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    declared = {n for st in walk(fn) if isinstance(st, ast.Global) for n in st.names}
                    out |= {n.id for n in walk(fn) if isinstance(n, ast.Name) and n.id in declared
                            and isinstance(n.ctx, (ast.Store, ast.Del))}
        cached = frozenset(out)
        setattr(tree, _KEY, cached)
    return cached
