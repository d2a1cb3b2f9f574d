"""Integer evaluation and monotonicity of shape formulas, for bounds.py's propagation.

`value(e, env)` / `holds(p, env)` evaluate on plain ints with the Z3 encoding's division
semantics (floor division and modulo by positive divisors only; anything else raises
`Undecided`). `direction(e, v, lo)` says whether `e` is non-decreasing (+1) or non-increasing (-1)
in `v` over the box whose lower bounds are `lo` — sums of products of non-negative monotone atoms
— or None when that cannot be shown; bounds.py searches only along such directions, which is what
makes its propagation sound. Tests: tests/unit/test_bounds.py.
"""
from __future__ import annotations

from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import Pred


class Undecided(Exception):
    """Evaluation left the fragment this module can decide (e.g. division by a non-positive)."""


# ---- evaluation on plain ints ------------------------------------------------

# bounds.py evaluates a few formulas tens of thousands of times while it searches (a UNet's
# channel arithmetic: 65,000 evaluations of 181 formulas); past this many evaluations of one
# Expr, it is compiled to a Python function, ~5x faster than walking its terms.
COMPILE_AFTER = 32


def value(e: Expr, env: dict) -> int:
    state = e._eval
    if state is None or state.__class__ is int:
        n = (state or 0) + 1
        if n < COMPILE_AFTER:
            e._eval = n
            return _walk(e, env)
        state = e._eval = _compiled(e)
    return state(env)


def _walk(e: Expr, env: dict) -> int:
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


def _floordiv(x: int, y: int, atom) -> int:
    if y <= 0:
        raise Undecided(atom)
    return x // y


def _mod(x: int, y: int, atom) -> int:
    if y <= 0:
        raise Undecided(atom)
    return x % y


def _compiled(e: Expr):
    """`e` as `lambda env: ...` with `_walk`'s semantics (the same floor division and modulo,
    the same `Undecided` for a divisor that is not positive, a KeyError for a missing symbol)."""
    atoms: list = []  # the Atoms an Undecided names, passed in rather than printed

    def expr(x: Expr) -> str:
        parts = [term(m, c) for m, c in x.terms.items()]
        return "(" + " + ".join(parts) + ")" if parts else "0"

    def term(m, c: int) -> str:
        return "*".join([repr(c)] + [atom(a) for a in m])

    def atom(a) -> str:
        if a.kind == "sym":
            return f"env[{a.name!r}]"
        x, y = expr(a.args[0]), expr(a.args[1])
        if a.kind in ("max", "min"):
            return f"{a.kind}({x}, {y})"
        d = a.args[1].value
        if d is not None and d > 0:  # a positive constant divisor needs no check
            return f"({x} {'//' if a.kind == 'floordiv' else '%'} {d})"
        atoms.append(a)
        return f"{'_floordiv' if a.kind == 'floordiv' else '_mod'}({x}, {y}, _atoms[{len(atoms) - 1}])"

    src = "lambda env: " + expr(e)
    code = _CODE.get(src)
    if code is None:
        if len(_CODE) >= MAX_CODE:
            _CODE.clear()
        code = _CODE[src] = eval(src, {"_floordiv": _floordiv, "_mod": _mod, "_atoms": atoms, "max": max, "min": min})
    return code


# Compiled code by its source, shared by every Expr that prints to it: an analysis makes the same
# formula again and again as distinct objects (resnet.py: 1,051 compilations of 75 sources, 5 % of
# `infer`'s CPU). The same source is the same function, evaluated in the same order; the Atoms it
# was compiled with (`_atoms`) print alike, so they are equal, and an Undecided's atom is never read.
_CODE: dict = {}
MAX_CODE = 4096


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


def _nonneg_expr(e: Expr, lo: dict, memo: dict) -> bool:
    return all(c > 0 and all(_nonneg_atom(a, lo, memo) for a in m) for m, c in e.terms.items())


def _nonneg_atom(a, lo: dict, memo: dict) -> bool:
    k = a.kind
    if k == "sym":
        return lo.get(a.name, 1) >= 0
    key = (id(a), None)
    out = memo.get(key)
    if out is None:
        x, y = a.args
        out = memo[key] = (_pos_const(y) and _nonneg_expr(x, lo, memo) if k == "floordiv" else _pos_const(y)
                           if k == "mod" else _nonneg_expr(x, lo, memo) or _nonneg_expr(y, lo, memo)
                           if k == "max" else _nonneg_expr(x, lo, memo) and _nonneg_expr(y, lo, memo))
    return out


def direction(e: Expr, v: str, lo: dict, memo: Optional[dict] = None):
    """+1 / -1 when `e` is non-decreasing / non-increasing in `v` on the box above `lo`,
    0 when it does not mention `v`, None when this analysis cannot tell. `memo`: what is known of
    `e`'s atoms under this `lo` (one dict for the formulas of one box): a size's atoms share
    their operands (a deep model's spatial size), and walking the tree, not the DAG, took 26 s."""
    memo = {} if memo is None else memo
    acc = 0
    for m, c in e.terms.items():
        d = _mono_dir(m, v, lo, memo)
        if d is None:
            return None
        acc = _combine(acc, d if c > 0 else -d)
        if acc is None:
            return None
    return acc


def _mentions(a, v: str) -> bool:
    return a.name == v if a.kind == "sym" else v in _atom_syms(a)


def _mono_dir(m, v: str, lo: dict, memo: dict):
    with_v = [a for a in m if _mentions(a, v)]
    if not with_v:
        return 0
    if len(with_v) < len(m) and not all(_nonneg_atom(a, lo, memo) for a in m if not _mentions(a, v)):
        return None
    if len(with_v) == 1:
        return _atom_dir(with_v[0], v, lo, memo)
    # a product of several factors in v is monotone when every factor is non-negative and
    # they all move the same way
    acc = 0
    for a in with_v:
        if not _nonneg_atom(a, lo, memo):
            return None
        acc = _combine(acc, _atom_dir(a, v, lo, memo))
        if acc is None:
            return None
    return acc


def _atom_dir(a, v: str, lo: dict, memo: dict):
    k = a.kind
    if k == "sym":
        return 1 if a.name == v else 0
    key = (id(a), v)
    if key in memo:
        return memo[key]
    x, y = a.args
    if k == "floordiv":
        out = None if v in y.symbols() or not _pos_const(y) else direction(x, v, lo, memo)
    elif k == "mod":
        out = None
    else:
        out = _combine(direction(x, v, lo, memo), direction(y, v, lo, memo))
    memo[key] = out
    return out
