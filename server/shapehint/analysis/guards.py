"""Rank guards: tests whose outcome fixes a tensor's rank (syntax only, no values).

`assert x.dim() == 4`, `x.ndim`, `len(x.shape)`, `torch._assert(...)`, the guard idiom
`if x.ndim != 4: raise ...`, and shape equalities: `x.shape == (B, 3, H, W)`, `x.size() == ...`,
`tuple(x.shape)`, `list(x.size())`, `torch.Size([...])`, `x.shape[1:] == (3, H, W)` (rank 1 + 3).
The executor (`_learn_guarded_ranks`) decides where a guard speaks for every path and teaches
the tensor its rank; the comparison itself then pins the dimensions as on any known-rank tensor.
"""
from __future__ import annotations

import ast
from typing import Optional

MAX_RANK = 64


def rank_guards(test: ast.expr, holds: bool) -> list:
    """[(tensor expression, rank)] that `test` having truth value `holds` implies; through
    `not`, `and` (when true) and `or` (when false)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return rank_guards(test.operand, not holds)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if holds else ast.Or):
        return [g for v in test.values for g in rank_guards(v, holds)]
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq if holds else ast.NotEq)):
        return []
    for a, b in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
        base = _rank_of(a)
        if base is not None and isinstance(b, ast.Constant) and type(b.value) is int and 0 <= b.value <= MAX_RANK:
            return [(base, b.value)]
        shape, n = _shape_of(a), _tuple_len(b)
        if shape is not None and n is not None and shape[1] + n <= MAX_RANK:
            return [(shape[0], shape[1] + n)]
    return []


def _rank_of(e: ast.expr) -> Optional[ast.expr]:
    """The tensor expression whose rank `e` reads, if it reads one."""
    if isinstance(e, ast.Attribute) and e.attr == "ndim":
        return e.value
    if _is_call(e, ("dim", "ndimension")):
        return e.func.value
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "len" and len(e.args) == 1:
        whole = _shape_of(e.args[0])
        if whole is not None and whole[1] == 0:
            return whole[0]
    return None


def _shape_of(e: ast.expr) -> Optional[tuple]:
    """(tensor expression, k) when `e` is its shape from axis k on: `x.shape`, `x.size()`,
    `tuple(x.shape)`, `list(x.size())`, `x.shape[k:]`."""
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in ("tuple", "list") \
            and len(e.args) == 1 and not e.keywords:
        return _shape_of(e.args[0])
    if isinstance(e, ast.Attribute) and e.attr == "shape":
        return e.value, 0
    if _is_call(e, ("size",)):
        return e.func.value, 0
    if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Slice):
        s = e.slice
        whole = _shape_of(e.value)
        if whole is not None and whole[1] == 0 and s.upper is None and s.step is None \
                and isinstance(s.lower, ast.Constant) and type(s.lower.value) is int and s.lower.value >= 0:
            return whole[0], s.lower.value
    return None


def _tuple_len(e: ast.expr) -> Optional[int]:
    """The length of a tuple or list display (`(B, 3)`, `[B, 3]`, `torch.Size([B, 3])`)."""
    if isinstance(e, ast.Call) and len(e.args) == 1 and not e.keywords and (
            (isinstance(e.func, ast.Attribute) and e.func.attr == "Size")
            or (isinstance(e.func, ast.Name) and e.func.id == "Size")):
        return _tuple_len(e.args[0])
    if isinstance(e, (ast.Tuple, ast.List)) and not any(isinstance(x, ast.Starred) for x in e.elts):
        return len(e.elts)
    return None


def _is_call(e: ast.expr, methods: tuple) -> bool:
    """`<expr>.method()` without arguments."""
    return isinstance(e, ast.Call) and not e.args and not e.keywords and isinstance(e.func, ast.Attribute) \
        and e.func.attr in methods
