"""Integer evaluation and monotonicity of shape formulas, for bounds.py's propagation.

`value(e, env)` / `holds(p, env)` evaluate on plain ints with the Z3 encoding's division
semantics (floor division and modulo by positive divisors only; anything else raises
`Undecided`). `direction(e, v, lo)` says whether `e` is non-decreasing (+1) or non-increasing (-1)
in `v` over the box whose lower bounds are `lo` — sums of products of non-negative monotone atoms
— or None when that cannot be shown; bounds.py searches only along such directions, which is what
makes its propagation sound. Tests: tests/unit/test_bounds.py.
"""
from __future__ import annotations

from ..shapes.expr import Expr
from ..shapes.shape import Pred


class Undecided(Exception):
    """Evaluation left the fragment this module can decide (e.g. division by a non-positive)."""


# ---- evaluation on plain ints ------------------------------------------------

def value(e: Expr, env: dict) -> int:
    total = 0
    for m, c in e.terms.items():
        for a in m:
            k = a.kind
            if k == "sym":
                c *= env[a.name]
                continue
            x = value(a.args[0], env)
            y = value(a.args[1], env)
            if k == "floordiv":
                if y <= 0:
                    raise Undecided(a)
                c *= x // y
            elif k == "mod":
                if y <= 0:
                    raise Undecided(a)
                c *= x % y
            elif k == "max":
                c *= x if x >= y else y
            else:
                c *= x if x <= y else y
        total += c
    return total


def holds(p: Pred, env: dict) -> bool:
    op = p.op
    if op == "==":
        return value(p.args[0], env) == value(p.args[1], env)
    if op == "<=":
        return value(p.args[0], env) <= value(p.args[1], env)
    if op == "<":
        return value(p.args[0], env) < value(p.args[1], env)
    if op == "!=":
        return value(p.args[0], env) != value(p.args[1], env)
    if op == "and":
        return all(holds(a, env) for a in p.args)
    if op == "or":
        return any(holds(a, env) for a in p.args)
    if op == "not":
        return not holds(p.args[0], env)
    return op == "true"


# ---- monotonicity ------------------------------------------------------------

def _atom_syms(a) -> frozenset:
    if a.kind == "sym":
        return frozenset((a.name,))
    return a.args[0].symbols() | a.args[1].symbols()


def _combine(d1, d2):
    if d1 is None or d2 is None:
        return None
    if d1 == 0:
        return d2
    if d2 == 0 or d1 == d2:
        return d1
    return None


def _pos_const(e: Expr) -> bool:
    v = e.value
    return v is not None and v > 0


def _nonneg_expr(e: Expr, lo: dict) -> bool:
    return all(c > 0 and all(_nonneg_atom(a, lo) for a in m) for m, c in e.terms.items())


def _nonneg_atom(a, lo: dict) -> bool:
    k = a.kind
    if k == "sym":
        return lo.get(a.name, 1) >= 0
    x, y = a.args
    if k == "floordiv":
        return _pos_const(y) and _nonneg_expr(x, lo)
    if k == "mod":
        return _pos_const(y)
    if k == "max":
        return _nonneg_expr(x, lo) or _nonneg_expr(y, lo)
    return _nonneg_expr(x, lo) and _nonneg_expr(y, lo)


def direction(e: Expr, v: str, lo: dict):
    """+1 / -1 when `e` is non-decreasing / non-increasing in `v` on the box above `lo`,
    0 when it does not mention `v`, None when this analysis cannot tell."""
    acc = 0
    for m, c in e.terms.items():
        d = _mono_dir(m, v, lo)
        if d is None:
            return None
        acc = _combine(acc, d if c > 0 else -d)
        if acc is None:
            return None
    return acc


def _mentions(a, v: str) -> bool:
    return a.name == v if a.kind == "sym" else v in _atom_syms(a)


def _mono_dir(m, v: str, lo: dict):
    with_v = [a for a in m if _mentions(a, v)]
    if not with_v:
        return 0
    if len(with_v) < len(m) and not all(_nonneg_atom(a, lo) for a in m if not _mentions(a, v)):
        return None
    if len(with_v) == 1:
        return _atom_dir(with_v[0], v, lo)
    # a product of several factors in v is monotone when every factor is non-negative and
    # they all move the same way
    acc = 0
    for a in with_v:
        if not _nonneg_atom(a, lo):
            return None
        acc = _combine(acc, _atom_dir(a, v, lo))
        if acc is None:
            return None
    return acc


def _atom_dir(a, v: str, lo: dict):
    k = a.kind
    if k == "sym":
        return 1 if a.name == v else 0
    x, y = a.args
    if k == "floordiv":
        if v in y.symbols() or not _pos_const(y):
            return None
        return direction(x, v, lo)
    if k == "mod":
        return None
    return _combine(direction(x, v, lo), direction(y, v, lo))
