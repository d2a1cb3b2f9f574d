"""What a call cut off may have written (session 16): a call that did not run to its end — past
its share of steps in another module's code (costs.py), or at the call-depth or recursion
bounds — may write the objects it was given, and what they hold, in the part that never ran.
A configuration handed to a base class's `__init__` (whose set-up writes
`config._attn_implementation_internal`, or a width a helper rounds up) would otherwise keep
the value written before the call, and a later read of it give a wrong shape.

So each instance the call's arguments reach forgets the attributes that the call may store by
name: the stores (`x.name = ...`, `x.name += ...`, `del x.name`, `setattr(x, "name", ...)`) of
the callee and of every function it may call, found by name in the modules the analysis loaded
(`Importer.scanned`) and in those that their imports not resolved yet name, read but not run
(the part that never ran may have imported them): any function or method of a called name, a
class's constructors, a `super()` call's methods in the bases the class names; each module indexed and each function
scanned once, as the trees are shared). A store through a method's receiver (`self.name = ...`)
writes only instances of that method's class and its subclasses, and none from `__init__` (it
runs on an instance being made, not one the caller holds: a cut-off constructor's own instance
is unfinished.py's). A class attribute an instance does not hold is forgotten in the instance
too; an attribute that no reached code stores keeps its value.

What a scan by name cannot see stays a known limit: stores under a name not known
(`setattr(x, key, v)` in a loop over a dict, `x.__dict__.update(...)`: a library's generic
copying), and functions called through a value (`fn(x)` of a parameter) rather than a name."""
from __future__ import annotations

import ast

from ..frontend.walk import walk
from ..shapes.values import DictV, ListV, TupleV, UnknownV
from .imports import module_source, parsed_module
from .objects import FuncObj, InstanceObj, LazyImport

# the values of calls cut off (calls.py's bounds, costs.py's shares); a call that returns the
# value of one cut off inside it is taken as cut off too (more forgotten: never a stale value)
CUT_SHORT = frozenset({"call depth", "recursion", "a call into an imported module past the analysis's share",
                       "a call into an imported module past its share",
                       "a helper of an imported constructor past its share"})
MAX_REACHED = 5_000  # parts of the arguments walked at most (a model holds its layers' instances)
_INDEX, _FACTS = "_shapehint_cut_index", "_shapehint_cut_facts"  # (cached on the shared trees)
MAX_READ = 50  # modules not loaded read for a cut-off call's callees, at most
MAX_FUNCTIONS = 3_000  # functions a cut-off call may reach, followed at most (past it: any store)
_MADE_BY = frozenset({"__init__", "__new__", "__post_init__"})  # what a class's call runs


def forget(it, f, args, kwargs) -> None:
    """The attributes that `f`, or what it may call, may store, forgotten in every instance
    `args` and `kwargs` reach."""
    insts = _instances(list(args) + list((kwargs or {}).values()))
    if not insts:
        return
    names, own = _stores_of(it, getattr(f, "node", None))
    for inst in insts:
        mine = None if names is None else _classes_stores(inst.cls, own)
        if inst.closed is not None:  # (a name it may store is no longer surely absent: absent_attrs.py)
            inst.closed = None if names is None else inst.closed | frozenset(names) | frozenset(mine)
        gone = [n for n in _held(inst) if names is None or n in names or n in mine]
        if gone:
            it.mutated(inst)
            for n in gone:
                inst.attrs[n] = UnknownV(f"{n}, which a call cut off may write")


class _Modules:
    """The indexes of the modules the analysis loaded, and of those their imports not resolved
    yet name (read, never run: a call cut off may import them in the part that never ran)."""

    def __init__(self, imports):
        self.imports = imports
        scanned = getattr(imports, "scanned", None) or ()
        self.defs: dict = {}  # name -> [(def, class, tree)] over every module indexed
        self.classes: dict = {}  # name -> [(ClassDef, tree)]
        for _, tree, _ in scanned:
            self.add(tree)
        self.globals = {id(tree): g for g, tree, _ in scanned}
        self.read: set = set()

    def add(self, tree) -> None:
        defs, classes = _index(tree)
        for mine, index in ((self.defs, defs), (self.classes, classes)):
            for k, v in index.items():
                got = mine.get(k)
                mine[k] = v if got is None else got + v

    def called(self, tree, calls) -> None:
        """Index the modules that names `calls` of `tree`'s module are imported from, not loaded."""
        g = self.globals.get(id(tree))
        if not g or len(self.read) >= MAX_READ:
            return
        for name in calls:
            lazy = g.get(name)
            if type(lazy) is LazyImport:
                for path in _paths(self.imports, lazy):
                    if path not in self.read and path not in self.imports.loaded:
                        self.read.add(path)
                        tree = _parsed(self.imports, path)
                        if tree is not None:
                            self.add(tree)


def _paths(importer, lazy) -> list:
    names = [lazy.module] if lazy.attr is None else [lazy.module, f"{lazy.module}.{lazy.attr}" if lazy.module else lazy.attr]
    return [p for p in (importer.find_from(lazy.directory, n, lazy.level) for n in names if n) if p is not None]


def _parsed(importer, path: str):
    text = module_source(path)
    if text is None:
        return None
    return parsed_module(path, text, importer.parse).tree if importer.parse is not None else None


def _stores_of(it, node) -> tuple:
    """`_reached_stores` of `node`, found once per function while the analysis loads no module:
    what the search finds depends only on the modules scanned and loaded (their trees, shared,
    and the imports their globals have not resolved: resolving one into a loaded module reads
    nothing more), so a base constructor's helper cut off at every construction is searched
    once. Not while module code runs, which binds the globals the search reads."""
    imports = getattr(it, "imports", None)
    memo = getattr(imports, "cut_stores", None)
    if memo is None or getattr(it, "module_code", 0):
        return _reached_stores(node, _Modules(imports))
    key = (id(node), len(imports.scanned), len(imports.loaded))
    got = memo.get(key)
    if got is None:  # (the node is held with the answer: its id stays its own)
        got = memo[key] = (_reached_stores(node, _Modules(imports)), node)
    return got[0]


def _reached_stores(node, modules: "_Modules") -> tuple:
    """(names stored on any object, or None: any; id(ClassDef) -> names its methods store
    through their receiver) by `node` and the functions it may call, found by name in the
    loaded modules; past MAX_FUNCTIONS, any name."""
    names: set = set()
    own: dict = {}
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None, own
    first = _owner(node, modules)
    if first is None:
        return None, own
    seen, todo = {id(node)}, [(node, first[0], first[1])]
    while todo:
        if len(seen) > MAX_FUNCTIONS:
            return None, own
        fn, cls, tree = todo.pop()
        calls, supers, stored, mine = _facts(fn, cls is not None)
        names |= stored
        if mine:
            own[id(cls)] = own.get(id(cls), frozenset()) | mine
        modules.called(tree, calls)
        for d, c, t in _callees(calls, supers, cls, modules):
            if id(d) not in seen:
                seen.add(id(d))
                todo.append((d, c, t))
    return names, own


def _callees(calls, supers, cls, modules: "_Modules") -> list:
    """(function, its class, its tree) that calls by these names may run: any of the name; a
    class's constructors; a `super()` call's, in the classes the enclosing class names as bases."""
    out = []
    defs, classes = modules.defs, modules.classes
    for name in calls:
        out.extend(defs.get(name, ()))
        for c, t in classes.get(name, ()):
            out.extend(_up(c, t, _MADE_BY, classes))
    if supers and cls is not None:
        out.extend(_up(cls, None, supers, classes, skip_self=True))
    return out


def _up(cls, tree, names, classes: dict, skip_self: bool = False) -> list:
    """(method, class, tree) of `names` in `cls` and the classes named as its bases, by name."""
    out, seen, todo = [], set(), [(cls, tree)]
    while todo:
        c, t = todo.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        if not (skip_self and c is cls):
            out.extend((m, c, t) for m in c.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                       and m.name in names)
        for b in c.bases:
            b = b.attr if isinstance(b, ast.Attribute) else b.id if isinstance(b, ast.Name) else None
            todo.extend(classes.get(b, ()))
    return out


def _owner(node, modules: "_Modules"):
    """(its class or None, its module's tree) of a function, None: not in a loaded module."""
    for d, c, t in modules.defs.get(node.name, ()):
        if d is node:
            return c, t
    return None


def _index(tree) -> tuple:
    """(def name -> [(def, its class or None, the tree)], class name -> [(ClassDef, the tree)]) of
    a module's statements, not its expressions' insides (a function defined inside another is
    scanned with it), once per tree."""
    got = getattr(tree, _INDEX, None)
    if got is None:
        defs: dict = {}
        classes: dict = {}
        todo = [(st, None) for st in tree.body]
        while todo:
            n, cls = todo.pop()
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs.setdefault(n.name, []).append((n, cls, tree))
            elif isinstance(n, ast.ClassDef):
                classes.setdefault(n.name, []).append((n, tree))
                todo.extend((st, n) for st in n.body)
            else:  # (definitions under a top-level `if`, `try`, `with`)
                for field in ("body", "orelse", "finalbody", "handlers"):
                    todo.extend((st, cls) for st in getattr(n, field, ()) if isinstance(st, ast.AST))
        got = (defs, classes)
        setattr(tree, _INDEX, got)
    return got


def _facts(fn, method: bool) -> tuple:
    """(names it calls, names it calls through `super()`, names it stores on any object, names it
    stores through its receiver — a method's, outside `__init__`), once per function."""
    got = getattr(fn, _FACTS, None)
    if got is None:
        got = _scan(fn, method)
        setattr(fn, _FACTS, got)
    return got


def _held(inst: InstanceObj) -> list:
    """The attributes a read of `inst` finds: its own, and its classes' values other than methods."""
    out = list(inst.attrs)
    seen, todo = set(), [inst.cls]
    while todo:
        c = todo.pop()
        if id(c) in seen or not hasattr(c, "attrs"):
            continue
        seen.add(id(c))
        out.extend(n for n, v in c.attrs.items()
                   if n not in inst.attrs and not n.startswith("__") and not isinstance(v, FuncObj))
        todo.extend(getattr(c, "bases", ()))
    return out


def _classes_stores(cls, own: dict):
    """The names the methods of `cls` and its bases store through their receiver."""
    out: set = set()
    seen, todo = set(), [cls]
    while todo:
        c = todo.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        out |= own.get(id(getattr(c, "node", None)), frozenset())
        todo.extend(getattr(c, "bases", ()))
    return out


def _instances(roots: list) -> list:
    out, seen, todo, n = [], set(), list(roots), 0
    while todo and n < MAX_REACHED:
        v = todo.pop()
        n += 1
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, InstanceObj):
            out.append(v)
            todo.extend(v.attrs.values())
            todo.extend(v.seq or ())
        elif isinstance(v, (ListV, TupleV)):
            todo.extend(v.items or ())
        elif isinstance(v, (DictV, dict)):
            todo.extend((v.items if isinstance(v, DictV) else v).values())
    return out


def _scan(fn, method: bool) -> tuple:
    calls: set = set()
    supers: set = set()
    names: set = set()
    mine: set = set()
    receiver = fn.args.args[0].arg if method and fn.args.args and not _static(fn) else None
    for node in walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                calls.add(f.id)
                if f.id in ("setattr", "delattr") and len(node.args) >= 2 and _constant(node.args[1]):
                    names.add(node.args[1].value)
                    calls.add(node.args[1].value)
            elif isinstance(f, ast.Attribute):
                if isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name) and f.value.func.id == "super":
                    supers.add(f.attr)
                elif f.attr in _MADE_BY and isinstance(f.value, ast.Name):
                    calls.add(f.value.id)  # (`Base.__init__(self, ...)`: that class's)
                else:
                    calls.add(f.attr)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            calls.add(node.attr)  # (a property's setter)
            if not (isinstance(node.value, ast.Name) and node.value.id == receiver):
                names.add(node.attr)
            elif fn.name != "__init__":
                mine.add(node.attr)
    return frozenset(calls), frozenset(supers), frozenset(names), frozenset(mine)


def _constant(key) -> bool:
    return isinstance(key, ast.Constant) and isinstance(key.value, str)


def _static(fn) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)



