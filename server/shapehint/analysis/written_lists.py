"""Module-level lists that code the analysis does not run in order may change (`BUF = []`, a
function appending to it, another concatenating it).

The module's top-level code ran to its end, but a function runs after any number of calls of
any function: the list may hold what any of them appended, any number of times. Its items as
the top-level code left them claimed the shape of one order of calls only — and the analysis of
the function that appends, run first, left its item in place for the next function's analysis
(`torch.cat(BUF, 0)` claimed one push's rows; read before any push, a false SH107 for an empty
list). So such a list's items are forgotten (unknown length, unknown items: an append to it
changes nothing), before any function's analysis; a list only read there keeps them.

What may change it is read off the module's syntax, as for dicts (`sealed_dicts.py`): inside a
function, lambda or class body, its name as the receiver of a method that changes a list, the
target of a store, deletion or augmented assignment through it, or an argument of a call that
is not a read-only builtin or a library function reached by attribute (`torch.cat(BUF, 0)`)."""
from __future__ import annotations

import ast
from dataclasses import fields

from ..shapes.values import ListV
from .sealed_dicts import uses_in_code_not_run

_CHANGING = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
                       "__setitem__", "__delitem__", "__iadd__"})
_READING_CALLS = frozenset({"len", "list", "tuple", "sorted", "enumerate", "zip", "iter", "reversed",
                            "sum", "min", "max", "any", "all", "isinstance", "print", "str", "repr"})
_KEY = "_shapehint_list_uses"


def forget_written(names: dict, tree: ast.Module) -> None:
    """Forget the items of each list `names` (a module's globals, its top-level code run) binds
    that code not run in order may change."""
    lists = [(n, v) for n, v in names.items() if isinstance(v, ListV) and not n.startswith("__")]
    if not lists:
        return
    uses = uses_in_code_not_run(tree, _reads, _KEY)
    for name, lst in lists:
        if any(not read for read in uses.get(name, ())):
            _forget(lst)


def _forget(lst: ListV) -> None:
    for f in fields(ListV):  # (every field's default is immutable: None or ())
        setattr(lst, f.name, f.default)


def _reads(node: ast.Name, parents: dict) -> bool:
    if not isinstance(node.ctx, ast.Load):
        return False
    up = parents.get(node)
    if isinstance(up, ast.Attribute):
        return up.attr not in _CHANGING
    if isinstance(up, ast.Subscript):
        return isinstance(up.ctx, ast.Load)
    if isinstance(up, ast.AugAssign):
        return False
    if isinstance(up, ast.Starred):  # (spread into a call or a display: read as the call is)
        node, up = up, parents.get(up)
    if isinstance(up, ast.Call) and up.func is not node:
        f = up.func
        return isinstance(f, ast.Attribute) or isinstance(f, ast.Name) and f.id in _READING_CALLS
    return True  # (iterated, compared, tested, bound to another name in the function)
