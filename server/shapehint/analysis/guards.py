"""Rank guards: tests whose outcome fixes a tensor's rank (syntax only, no values).

`assert x.dim() == 4`, `x.ndim`, `len(x.shape)`, `torch._assert(...)`, the guard idiom
`if x.ndim != 4: raise ...`, and shape equalities: `x.shape == (B, 3, H, W)`, `x.size() == ...`,
`tuple(x.shape)`, `list(x.size())`, `torch.Size([...])`, `x.shape[1:] == (3, H, W)` (rank 1 + 3);
an equality of two shapes' tails (`shape_equalities`) where the values give one side's rank.
The interpreter (ranks.py, `Ranks.learn_guarded_ranks`) decides where a guard speaks for every path
and teaches the tensor its rank; the comparison itself then pins the dimensions as on any
known-rank tensor.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..frontend.walk import walk

MAX_RANK = 64


def _implied_equalities(test: ast.expr, holds: bool) -> list:
    """The `a == b` comparisons (as (a, b)) that `test` having truth value `holds` implies;
    through `not`, `and` (when true) and `or` (when false)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _implied_equalities(test.operand, not holds)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if holds else ast.Or):
        return [g for v in test.values for g in _implied_equalities(v, holds)]
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq if holds else ast.NotEq):
        return [(test.left, test.comparators[0])]
    return []


def rank_guards(test: ast.expr, holds: bool) -> list:
    """[(tensor expression, rank)] that `test` having truth value `holds` implies."""
    return [g for left, right in _implied_equalities(test, holds) for g in _rank_guard(left, right)]


def _rank_guard(left: ast.expr, right: ast.expr) -> list:
    for a, b in ((left, right), (right, left)):
        base = _rank_of(a)
        if base is not None and isinstance(b, ast.Constant) and type(b.value) is int and 0 <= b.value <= MAX_RANK:
            return [(base, b.value)]
        shape, n = _shape_of(a), _tuple_len(b)
        if shape is not None and n is not None and shape[1] + n <= MAX_RANK:
            return [(shape[0], shape[1] + n)]
    return []


def shape_equalities(test: ast.expr, holds: bool) -> list:
    """[((a, ka), (b, kb))] for `a.shape[ka:] == b.shape[kb:]` that `test` having truth value
    `holds` implies: the two tails have one length, so where one tensor's rank is known the
    other's follows (`assert x.shape[2:] == skip.shape[2:]`; ranks.py asks the values)."""
    pairs = [(_shape_of(left), _shape_of(right)) for left, right in _implied_equalities(test, holds)]
    return [(a, b) for a, b in pairs if a is not None and b is not None]


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


# ---- rank tests on a tensor of unknown rank (Q3) -------------------------------------------------

class _Opaque(Exception):
    """A part of the test this evaluation cannot read concretely."""


SOME = object()  # a value that is not None (`mask is not None`)
OPAQUE = object()  # a value the test's concrete evaluation cannot use
MAX_RANK_TRIED = 16


def reads_rank(test: ast.expr) -> bool:
    """Whether `test` reads a rank (`x.dim()`, `len(x.shape)`), kept on the node (parsed trees
    are never changed): every execution of every `if` asks, twice, and the walk was a twentieth
    of `check`'s time on transformers' modeling files."""
    got = getattr(test, "_shapehint_reads_rank", None)
    if got is None:
        got = any(_rank_of(n) is not None for n in walk(test))
        test._shapehint_reads_rank = got
    return got


def rank_tested_names(test: ast.expr) -> set:
    """The names whose rank `test` reads (`x` in `if x.dim() == 4`)."""
    return {b.id for b in map(_rank_of, walk(test)) if isinstance(b, ast.Name)}


def rank_outcomes(test: ast.expr, rank_base, value) -> Optional[dict]:
    """{"segment": the variadic segment, "outcomes": {outcome: its length}} for a test over the ranks of tensors whose rank is unknown, all of
    one variadic segment (`x.dim() not in (4, 5)`, `hx is not None and hx.dim() != 2`): for each
    outcome the test can take, the fewest axes the segment needs for it (one witness input).

    `rank_base(expr)` gives (known axes, segment) for a tensor expression of unknown rank, or
    (rank, None) for a known one, or None; `value(expr)` gives an int, a bool, None, `SOME` or
    `OPAQUE` for the rest. Ranks beyond every constant in the test behave
    alike, so trying segment lengths up to the largest constant + 2 finds every outcome."""
    segments: set = set()
    bases: dict = {}
    values: dict = {}

    def ev(node, n):
        base = _rank_of(node)
        if base is not None:
            got = bases.get(id(base))
            if got is None:
                got = bases[id(base)] = rank_base(base)
            if got is None:
                raise _Opaque()
            known, seg = got
            if seg is not None:
                segments.add(seg)
                return known + n
            return known
        if isinstance(node, ast.Constant) and (node.value is None or type(node.value) in (int, bool)):
            return node.value
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return tuple(ev(e, n) for e in node.elts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not ev(node.operand, n)
        if isinstance(node, ast.BoolOp):
            last = None
            for v in node.values:
                last = ev(v, n)
                if bool(last) is isinstance(node.op, ast.Or):
                    return last
            return last
        if isinstance(node, ast.Compare):
            left = ev(node.left, n)
            for op, c in zip(node.ops, node.comparators):
                right = ev(c, n)
                if not _compare(op, left, right):
                    return False
                left = right
            return True
        got = values.get(id(node), values)
        if got is values:
            got = values[id(node)] = value(node)
        if got is OPAQUE:
            raise _Opaque()
        return got

    consts = [n.value for n in walk(test) if isinstance(n, ast.Constant) and type(n.value) is int]
    top = min(max([0, *consts]) + 2, MAX_RANK_TRIED)
    out: dict = {}
    for n in [*range(1, top + 1), 0]:  # a witness of rank 0 (a scalar tensor) only when it must be
        try:
            outcome = bool(ev(test, n))
        except (_Opaque, TypeError):
            return None
        out.setdefault(outcome, n)
    if len(segments) != 1:
        return None  # no unknown rank, or two unrelated ones (not one witness per outcome)
    return {"segment": next(iter(segments)), "outcomes": out}


def _compare(op, a, b) -> bool:
    if isinstance(op, ast.Is):
        return a is b
    if isinstance(op, ast.IsNot):
        return a is not b
    if isinstance(op, (ast.In, ast.NotIn)):
        if not isinstance(b, tuple):
            raise TypeError
        return (a in b) is isinstance(op, ast.In)
    if a is SOME or b is SOME or a is None or b is None:
        if isinstance(op, ast.Eq):
            return a is b
        if isinstance(op, ast.NotEq):
            return a is not b
        raise TypeError
    return {ast.Eq: a == b, ast.NotEq: a != b, ast.Lt: a < b, ast.LtE: a <= b,
            ast.Gt: a > b, ast.GtE: a >= b}[type(op)]
