"""Whether a registry's entry under a key the analysis knows may differ from the one it holds
(issue 28, cause 5; docs/analysis.md, "Registries read with a known key").

A registry class others may extend (a `register` class method, a `__setitem__`: lookup_writers.py)
keeps a read with a key not known unknown: code the analysis never runs may add any entry. A key
known (`REG["plain"]`, a literal, or an attribute a context holds at one) is different, under one
stated assumption: registries are extended with new keys, not overwritten under the ones they are
built with. So the entry its dicts hold for that key (their literal, and the top-level writes the
analysis ran) is the one read, unless code of a module the analysis loaded (`Importer.scanned`,
the analysed file included) writes that same literal key anywhere else:
- a subscript store or delete with that string (`REG["plain"] = f`, `d["plain"] = f` of any
  dict: which dict is not asked, so an unrelated one refuses too — missing, never wrong);
- a call of a mutator or of one of the registry classes' own methods (`register`, `update`,
  `setdefault`, `__setitem__`, any class method) passing that string as an argument, or a dict
  literal or keyword (`update(plain=f)`) holding it;
- a top-level write of a module whose top-level code did not all run, or a second top-level
  write, or one over a key a class-level dict literal of the registry already holds;
- a rebinding of one of the registry's dict attributes by attribute (`Reg._entries = {...}`)
  outside the `__init__` of its own classes.
A registration under a computed key (`REG[name] = f`, `Reg.register(name, f)`) does not refuse.
Pure syntax, read once per tree."""
from __future__ import annotations

import ast

from ..shapes.values import DictV
from .frames import decorated
from .objects import FuncObj, InstanceObj

_MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "__setitem__", "__delitem__", "register"})


def may_differ(it, inst: InstanceObj, key: str, classes: list) -> bool:
    """Whether `inst[key]` may read an entry other than the one its dicts hold now (`classes`:
    the Python classes of `inst`, its class first)."""
    scanned = list(getattr(getattr(it, "imports", None), "scanned", None) or ())
    api = {n for c in classes for n, v in c.attrs.items()
           if isinstance(v, FuncObj) and v.node is not None and decorated(v.node, "classmethod")}
    dict_attrs = {n for c in classes for n, v in c.attrs.items() if isinstance(v, DictV)} | \
        {n for n, v in inst.attrs.items() if isinstance(v, DictV)}
    inits = {id(v.node) for c in classes for n, v in c.attrs.items()
             if n == "__init__" and isinstance(v, FuncObj) and v.node is not None}
    top = 0
    for _, tree, ran in scanned:
        for w in _writes(tree):
            kind, what, at_top, init = w
            if kind == "key" and what == key or kind == "call" and key in what[1] and \
                    (what[0] in _MUTATORS or what[0] in api):
                if not (at_top and ran):
                    return True
                top += 1
            elif kind == "attr" and what in dict_attrs and init not in inits:
                return True
    return top > 1 or top == 1 and _literal_holds(classes, key)


def _literal_holds(classes: list, key: str) -> bool:
    """Whether a class-level dict literal of one of `classes` holds `key`."""
    for c in classes:
        for node in getattr(c.node, "body", ()):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict) and \
                    any(isinstance(k, ast.Constant) and k.value == key for k in node.value.keys):
                return True
    return False


def _writes(tree: ast.Module) -> list:
    """The writes in `tree` that may name a key: ("key", string, at top level, None) for a
    subscript store or delete with a literal string; ("call", (method, strings), at top level,
    None) for a method call passing literal strings (arguments, dict-literal keys, keyword
    names); ("attr", name, at top level, id of the enclosing function's node) for an attribute
    store."""
    got = getattr(tree, "_sh_registry_writes", None)
    if got is None:
        got = []
        _scan(tree, got)
        tree._sh_registry_writes = got
    return got


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.ClassDef, ast.Lambda)
_WATCHED = (ast.Subscript, ast.Attribute, ast.Call)  # (what `_one` reads: nothing else is passed it)
# nodes with no node below them that `_one` reads (a name's context, operators): not walked
_LEAVES = frozenset([ast.Name, ast.Constant] + [c for base in (ast.expr_context, ast.operator, ast.unaryop,
                                                              ast.cmpop, ast.boolop) for c in base.__subclasses__()])


def _scan(tree: ast.Module, out: list) -> None:
    """`_one` of every node of `tree`, in the order of a depth-first walk that takes a node's
    children last to first. Once per tree and process (a fresh `check` worker scans every module
    it loads), so the walk reads `_fields` itself instead of nesting ast.iter_child_nodes'
    generators, and skips the leaves (names, constants, operators): the same list"""
    todo = [(tree, True, None)]  # (node, at top level, id of the innermost function's node)
    pop, push = todo.pop, todo.append
    AST = ast.AST
    while todo:
        node, top, fn = pop()
        for name in node._fields:
            v = getattr(node, name, None)
            for child in (v if type(v) is list else (v,)):
                if type(child) in _LEAVES or not isinstance(child, AST):
                    continue
                if isinstance(child, _FUNCTIONS):
                    push((child, False, id(child)))
                elif isinstance(child, _SCOPES):
                    push((child, False, fn))
                else:
                    if isinstance(child, _WATCHED):
                        _one(child, top, fn, out)
                    push((child, top, fn))


def _one(n: ast.AST, top: bool, fn, out: list) -> None:
    if isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)):
        k = _string(n.slice)
        if k is not None:
            out.append(("key", k, top, None))
    elif isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)):
        out.append(("attr", n.attr, top, fn))
    elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
        keys = set()
        for a in n.args:
            s = _string(a)
            if s is not None:
                keys.add(s)
            elif isinstance(a, ast.Dict):
                keys |= {_string(k) for k in a.keys if _string(k) is not None}
        keys |= {kw.arg for kw in n.keywords if kw.arg is not None}
        keys |= {_string(kw.value) for kw in n.keywords if _string(kw.value) is not None}
        if keys:
            out.append(("call", (n.func.attr, frozenset(keys)), top, None))


def _string(e):
    return e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else None
