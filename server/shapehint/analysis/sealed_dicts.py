"""Module-private tables whose keys are all known: a dict an imported module binds at its top
level under a private name (`_ACTIVATIONS = dict(relu=nn.ReLU, ...)`) that none of its
functions or classes writes.

A dict made elsewhere may hold keys the analysis never saw put there (a registry filled by
decorators or by functions not run), so `key in d` decides presence only (compare.contains).
Such a table is different: its only writers are the module's top-level statements, which the
analysis ran to their end, and a private name is, by convention, written by no other module.
So absence is decided too (`if name in _FAST: return _FAST[name]` followed by the fallback
table), by marking the dict `exact`, as the `**kwargs` of a followed call are.

What keeps a table open is read off the module's syntax, since code the analysis does not run
may write it: inside any function, lambda or class body, the table's name (or another top-level
name for the very same dict) used other than to read it — `d[k]`, `k in d`, `d.get(k)`,
`d.keys()`/`.items()`/`.values()`/`.copy()` — or a top-level container holding it named at all
(`for t in _TABLES: t[k] = v` inside a function writes through it).

The same reading marks any module dict such code may write (`mark_written`, for the analysed
file too): a registry read with a key not known is one of its values only while no code
outside the module's top-level order can add one (choices.registry_choice)."""
from __future__ import annotations

import ast

from ..frontend.walk import walk, walk_noting_parents
from ..shapes.values import DictV, ListV, TupleV

_READS = frozenset({"get", "keys", "items", "values", "copy"})


def seal(names: dict, tree: ast.Module) -> None:
    """Mark `exact` the private dicts of a module whose top-level code ran to its end (`names`:
    its globals) that no code it did not run can write."""
    for d, written in _tables(names, tree):
        if not written and not d.exact and not d.open and d.elem is None and \
                any(n.startswith("_") and not n.startswith("__") for n in _names_of(names, d)):
            d.exact = True


def mark_written(names: dict, tree: ast.Module) -> list:
    """Mark `written_elsewhere` each dict of a module whose top-level code ran (`names`: its
    globals) that code it did not run may write: a registry one of its functions fills
    (`REG[name] = fn`) is not closed for a read the analysis makes before or after it runs that
    function — the reading function may come first in the file, or be analysed first, while at
    run time the registering call came before (choices.registry_choice). The dicts marked
    (global_objects.settle_tables forgets what they hold)."""
    out = []
    for d, written in _tables(names, tree):
        if written:
            d.written_elsewhere = True
            out.append(d)
    return out


def _names_of(names: dict, d: DictV) -> list:
    return [n for n, v in names.items() if v is d]


def _tables(names: dict, tree: ast.Module) -> list:
    """(dict, whether code not run may write it) for each dict `names` binds."""
    tables = {id(v): v for v in names.values() if isinstance(v, DictV)}
    if not tables:
        return []
    aliases, holders = {}, {}
    for n, v in names.items():
        if id(v) in tables:
            aliases.setdefault(id(v), set()).add(n)
        elif isinstance(v, (TupleV, ListV)) and v.items is not None:
            for item in v.items:
                if id(item) in tables:
                    holders.setdefault(id(item), set()).add(n)
    uses = uses_in_code_not_run(tree)
    return [(d, any(not read for n in aliases[key] for read in uses.get(n, ())) or
             any(n in uses for n in holders.get(key, ()))) for key, d in tables.items()]


def uses_in_code_not_run(tree: ast.Module, reads=None, key: str = "_shapehint_uses") -> dict:
    """name -> [whether each use only reads] for the names used inside functions, lambdas and
    class bodies (the code whose every run the analysis does not see), and those top-level code
    passes to a call; `reads(node, parents)` judges a use (a dict's, `only_reads`, by default)."""
    uses = getattr(tree, key, None)
    if uses is None:  # (the tree is shared by analyses while the file is unchanged: scanned once)
        uses = _uses_in_code_not_run(tree, reads or only_reads)
        setattr(tree, key, uses)
    return uses


def _uses_in_code_not_run(tree: ast.Module, reads) -> dict:
    out: dict = {}
    for top in tree.body:
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            _scan(top, out, reads)
            continue
        for node in walk(top):
            if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                _scan(node, out, reads)
            elif isinstance(node, ast.Call):
                # (a function called by top-level code is not run there: it may fill what it is given)
                for arg in list(node.args) + [k.value for k in node.keywords]:
                    arg = arg.value if isinstance(arg, ast.Starred) else arg
                    if isinstance(arg, ast.Name):
                        out.setdefault(arg.id, []).append(False)
    return out


def _scan(root: ast.AST, out: dict, reads) -> None:
    # one pass noting parents (a walk for the parents, then one for the names, was a fiftieth
    # of `check`'s CPU: every imported module's functions are scanned, for each of three readers)
    parents: dict = {}
    names: list = []
    for node in walk_noting_parents(root, parents):
        if isinstance(node, ast.Name):
            names.append(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for n in node.names:
                out.setdefault(n, []).append(False)
    for node in names:
        out.setdefault(node.id, []).append(reads(node, parents))


def only_reads(node: ast.Name, parents: dict) -> bool:
    if not isinstance(node.ctx, ast.Load):
        return False
    up = parents.get(node)
    if isinstance(up, ast.Subscript) and up.value is node:
        return isinstance(up.ctx, ast.Load)
    if isinstance(up, ast.Compare) and node in up.comparators:
        return all(isinstance(op, (ast.In, ast.NotIn)) for op in up.ops)
    if isinstance(up, ast.Attribute) and up.attr in _READS:
        call = parents.get(up)
        return isinstance(call, ast.Call) and call.func is up
    return False
