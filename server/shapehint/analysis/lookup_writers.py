"""Whether a mapping class's entries may change behind the analysis (issue 28, cause 5): before a
lookup with a key not known is one of the entries it saw (tables.any_lookup), no code the
analysis does not run may add one.

The entries live in dicts of the class (class-level, shared by every instance and subclass that
does not rebind them) and of the instance (local overrides). Code may add to them
- through the class's own API: a `__setitem__`, or a class method (a class-wide registration),
  in the class or a base — code the analysis never sees may call them, so the class is open
  whatever the program does (a library's registry filled at run time from other modules of the
  library, or by its users);
- through any other method of the class or a base that writes state through its receiver
  (`self._entries[k] = fn` in an `add`, through a local alias of it, `type(self)._entries.update(...)`,
  into what one of its methods returns); `__init__`'s own attribute bindings
  (`self._overrides = {}`) excepted, as constructions are followed; and any method of a subclass
  the loaded modules bind that writes a class-level dict it shares with the class;
- by name, from code the analysis does not run: a function, lambda or class body that uses a
  name bound to the instance or to one of its classes other than to read it (`REG[k]`,
  `k in REG`, `REG.get(k)`, a call of the class, a base in a class statement) —
  `Lookup._entries["x"] = f`, `REG._overrides["x"] = f`, `fill(REG)` — in any module the analysis
  loaded, the analysed file included (`Importer.scanned`), or the top-level code of one it did
  not run to its end. A function that writes is open however the analysis orders it with the
  read (it analyses functions in their order in the file, while at run time any may come first).

Anything else keeps the entries to those the analysis ran: the same convention as a module's
registry dict (sealed_dicts.mark_written)."""
from __future__ import annotations

import ast
from typing import Optional

from ..frontend.walk import walk
from .frames import decorated
from .objects import ClassObj, FuncObj, InstanceObj, LazyImport
from .sealed_dicts import only_reads, uses_in_code_not_run

# methods that change the container they are called on
_MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "append", "extend", "insert",
                       "remove", "discard", "add", "__setitem__", "__delitem__"})
MAX_DEPTH = 64


def extensible(it, inst: InstanceObj) -> bool:
    """Whether code the analysis does not run may add entries to `inst`'s lookup."""
    classes = python_classes(inst.cls)
    scanned = list(getattr(getattr(it, "imports", None), "scanned", None) or ())
    if len(classes) >= MAX_DEPTH or any(_has_api(c) or _written(c) for c in classes):
        return True
    return any(_shares_a_write(s, inst.cls) for s in _subclasses(scanned, classes)) or \
        _named_in_code_not_run(scanned, [inst] + classes)


def _shares_a_write(sub: ClassObj, cls: ClassObj) -> bool:
    """Whether a method `sub` defines writes a class-level attribute it shares with `cls` (or
    writes through the receiver itself)."""
    for name in _written(sub):
        if name == "*":
            return True
        mine = cls.lookup(name)
        if mine is not None and sub.lookup(name) is mine:
            return True
    return False


def python_classes(cls: ClassObj) -> list:
    out, todo = [], [cls]
    while todo and len(out) < MAX_DEPTH:
        c = todo.pop()
        if isinstance(c, ClassObj) and not any(c is o for o in out):
            out.append(c)
            todo.extend(c.bases)
    return out


def _subclasses(scanned: list, classes: list) -> list:
    """The classes the loaded modules bind that derive from one of `classes` (they share its
    dicts unless they rebind them)."""
    out: list = []
    for names, _, _ in scanned:
        for v in names.values():
            if isinstance(v, ClassObj) and not any(v is c for c in classes + out) and \
                    any(b is c for b in python_classes(v) for c in classes):
                out.append(v)
    return out


def _has_api(cls: ClassObj) -> bool:
    return any(isinstance(v, FuncObj) and v.node is not None and
               (v.node.name == "__setitem__" or decorated(v.node, "classmethod")) for v in cls.attrs.values())


def _written(cls: ClassObj) -> set:
    """The attributes of the receiver the methods `cls` defines write ("*": the receiver itself)."""
    out: set = set()
    for v in cls.attrs.values():
        if isinstance(v, FuncObj) and v.node is not None:
            out |= _writes_through_receiver(v.node)
    return out


def _writes_through_receiver(fn: ast.FunctionDef) -> frozenset:
    """The attributes of its first parameter (or of a local name bound to something reached from
    it) that the method stores into, deletes from, or calls a mutator on; in `__init__`, binding
    an attribute of the receiver does not count."""
    got = getattr(fn, "_sh_writes_receiver", None)
    if got is None:
        got = fn._sh_writes_receiver = frozenset(_scan_writes(fn))
    return got


def _scan_writes(fn: ast.FunctionDef, param: Optional[str] = None) -> set:
    """`param` given: what the function writes through that parameter, passing it on to another
    call counting as a write of it ("*")."""
    params = fn.args.posonlyargs + fn.args.args
    if param is None and (not params or decorated(fn, "staticmethod")):
        return set()  # (a static method reaches the class by name: `_named_in_code_not_run`)
    roots = {param or params[0].arg: "*"}  # name -> the receiver's attribute it stands for
    nodes = list(walk(fn))
    for _ in range(3):  # aliases of aliases (`d = self._entries; e = d`), a few deep
        for node in nodes:
            got = _reached(node.value, roots) if isinstance(node, (ast.Assign, ast.AnnAssign)) and \
                node.value is not None else None
            if got is not None:
                for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(t, ast.Name) and t.id not in roots:
                        roots[t.id] = got
    init = fn.name == "__init__" and param is None
    out: set = set()
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                    if not isinstance(e, (ast.Subscript, ast.Attribute)) or init and \
                            isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and \
                            not isinstance(node, ast.Delete):
                        continue
                    got = _reached(e, roots)
                    if got is not None:
                        out.add(got)
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr in _MUTATORS:
                got = _reached(f.value, roots)
            elif isinstance(f, ast.Name) and f.id in ("setattr", "delattr") and node.args:
                got = "*" if _reached(node.args[0], roots) is not None else None
            else:
                got = None
            if param is not None and any(_reached(a.value if isinstance(a, ast.Starred) else a, roots) is not None
                                         for a in list(node.args) + [k.value for k in node.keywords]):
                got = "*"
            if got is not None:
                out.add(got)
    return out


def _reached(e: ast.AST, roots: dict):
    """The attribute of the receiver that the chain `e` reaches (`self._entries[k]`: "_entries";
    `self` alone, or what one of its methods returns, `self.table()[k]`: "*"; `type(self)` counts
    as `self`), or None when it starts from no root."""
    chain, called = [], False
    while True:
        if isinstance(e, (ast.Attribute, ast.Subscript)):
            chain.append(e)
            e = e.value
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "type" and e.args:
            e = e.args[0]
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
            chain, called = [], True
            e = e.func.value
        else:
            break
    if not isinstance(e, ast.Name) or e.id not in roots:
        return None
    first = roots[e.id]
    if first != "*":
        return first
    if called or not chain:
        return "*"
    last = chain[-1]
    return last.attr if isinstance(last, ast.Attribute) else "*"


def _named_in_code_not_run(scanned: list, targets: list) -> bool:
    ids = {id(t) for t in targets}
    bound = {n for names, _, _ in scanned for n, v in names.items() if id(v) in ids}
    for names, tree, ran in scanned:
        here = {n for n, v in names.items() if id(v) in ids or isinstance(v, LazyImport) and v.attr in bound}
        if not here:
            continue
        uses = uses_in_code_not_run(tree, _reads, "_shapehint_lookup_uses")
        if any(not _harmless(r, names) for n in here for r in uses.get(n, ())):
            return True
        if not ran and any(isinstance(node, ast.Name) and node.id in here for node in walk(tree)):
            return True  # (top-level code past the cut may write it)
    return False


def _reads(node: ast.Name, parents: dict):
    """True: a use that adds no entry: a dict's reads, a call of a class (a new instance, its own
    overrides empty; its `__init__` is judged by `_written`), a base in a class statement (the
    subclass is judged by `_shares_a_write`). (callee, position or keyword): an argument of a
    call of a plain name, judged by what that function does with it (`_harmless`). False:
    anything else."""
    if only_reads(node, parents):
        return True
    up = parents.get(node)
    if isinstance(up, ast.Call) and up.func is node:
        return True
    if isinstance(up, ast.Call) and isinstance(up.func, ast.Name):
        if node in up.args:
            return (up.func.id, up.args.index(node))
        return False
    if isinstance(up, ast.keyword) and up.arg is not None:
        call = parents.get(up)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
            return (call.func.id, up.arg)
    return isinstance(up, ast.ClassDef) and node in up.bases


def _harmless(use, names: dict) -> bool:
    """Whether a use (`_reads`) adds no entry: passed to a function of the module that neither
    writes that parameter nor passes it on."""
    if not isinstance(use, tuple):
        return use
    fn = names.get(use[0])
    if not isinstance(fn, FuncObj) or fn.node is None or fn.cls is not None:
        return False
    a = fn.node.args
    params = [p.arg for p in a.posonlyargs + a.args]
    if isinstance(use[1], int):
        if use[1] >= len(params):
            return False
        param = params[use[1]]
    elif use[1] in params or use[1] in [p.arg for p in a.kwonlyargs]:
        param = use[1]
    else:
        return False
    return not _scan_writes(fn.node, param)
