"""A cheap model finder for the satisfiable queries bounds.py cannot decide.

Windowed models (a window size clipped to the input, `min(ws, min(H, W))`, then padding
`(w - H % w) % w`) give queries whose facts tie sizes by products (`B*C*H*W == B*L*C`) and ask
whether a clipped window or a padding can be more than 1 or 0. Propagation cannot move the
point off the least one (where every window is 1 and nothing is padded), the uniform points of
`bounds.quick_sat` break the products, and Z3 spends its whole limit on the nonlinear arithmetic
only to answer `unknown` (~0.6 s each, tens per file).

`find_model(preds, lower, upper)` builds a few points the way a person would pick a witness: the
symbols no equation defines get values from a fixed sequence of choices (small, uneven, a
few pseudo-random ones from a fixed seed), and each equation that then has one unknown symbol
occurring linearly (`B*L*C == B*C*H*W` for `L`, `?1 == w*w` for `?1`) gives that symbol its
value, when the division is exact. A point is returned only when every predicate holds at it
under the declared bounds (evaluated as bounds.py does), so a "sat" from here is exact; failing
to find one says nothing, and the caller goes on to Z3. Tests: tests/unit/test_witness.py.
"""
from __future__ import annotations

import math
import random
from typing import Optional

from ..shapes.expr import Expr
from .monotone import Undecided, holds, value

MAX_SYMBOLS = 64
# uneven values first: a clipped window `min(ws, H)` is more than 1 and leaves a remainder
# (`H % ws != 0`) only when the sizes differ
_FIXED = ((2,), (3,), (7, 9, 5, 11, 13, 6, 8, 10), (13, 11, 9, 7, 5, 3), (4, 6, 5, 7, 3, 9, 8, 2))
_RANDOM_POINTS = 4
_SEED = 23
_LCM_CAP = 1 << 20
_ANY = object()  # _solve_for: every value of the symbol solves the equation


def find_model(preds: list, lower: dict, upper: dict) -> Optional[dict]:
    """A point satisfying every predicate and the bounds, or None (see the module docstring)."""
    syms: set = set()
    for p in preds:
        syms |= p.symbols()
    if not syms or len(syms) > MAX_SYMBOLS:
        return None
    equations = [p.args[0] - p.args[1] for p in preds if p.op == "=="]
    rng = random.Random(_SEED)
    choices = list(_FIXED) + [tuple(rng.randint(2, 64) for _ in range(8)) for _ in range(_RANDOM_POINTS)]
    orders = []
    for aliases in (False, True):  # an alias (`C == D`) read as defining one side, then both
        defined = {v for d in equations for v in _definees(d, aliases)}
        order = (sorted(syms - defined) + sorted(syms & defined), len(syms - defined))
        if order not in orders:
            orders.append(order)
    for free, tied in orders:  # the symbols past `tied` are ones an equation could define
        for seq in choices:
            for multiples in (False, True):
                env = _point(free, equations, seq, lower, upper, tied if multiples else len(free))
                if env is not None and _holds_all(env, preds, lower, upper):
                    return env
    return None


def _point(free: list, equations: list, seq: tuple, lower: dict, upper: dict, tied: int) -> Optional[dict]:
    """Symbols `free[tied:]` that no equation gave a value take a multiple of every value so far:
    a size an equation ties to a product (`C == h*(C//h)`, `C % h == 0`) is a multiple of its factors."""
    env: dict = {}
    pending = list(equations)
    k = 0
    while len(env) < len(free):
        solved = False
        for d in pending:
            unknown = [v for v in d.symbols() if v not in env]
            if len(unknown) == 1 and _linear_in(d, unknown[0]):
                got = _solve_for(d, unknown[0], env)
                if got is _ANY:
                    continue  # holds whatever the symbol is (its factor is 0 here): it stays free
                if got is None:
                    return None
                env[unknown[0]] = got
                pending.remove(d)
                solved = True
                break
        if solved:
            continue
        i, n = next((i, v) for i, v in enumerate(free) if v not in env)
        x = seq[k % len(seq)]
        if i >= tied:
            x *= _lcm([v for v in env.values() if 0 < v < _LCM_CAP])
        env[n] = min(max(x, lower.get(n, 1)), upper.get(n, 1 << 62))
        k += 1
    return env


def _lcm(values: list) -> int:
    out = 1
    for v in values:
        out = out * v // math.gcd(out, v)
        if out >= _LCM_CAP:
            return 1
    return out


def _definees(d: Expr, aliases: bool) -> set:
    """The symbols an equation `d == 0` is best read as defining: both sides of an alias
    (`C == D`: neither is a free choice), else the one occurring linearly in a single monomial,
    the shortest such (`L` of `B*L*C == B*C*H*W`: a product is made from its factors, a factor
    taken from a product needs an exact division)."""
    if aliases and len(d.terms) == 2 and all(len(m) == 1 and m[0].kind == "sym" for m in d.terms):
        return {m[0].name for m in d.terms}
    best = None
    for v in sorted(d.symbols()):
        holders = [m for m in d.terms if any(a.kind == "sym" and a.name == v for a in m)]
        if len(holders) == 1 and _linear_in(d, v):
            key = (len(holders[0]), v)
            if best is None or key < best:
                best = key
    return set() if best is None else {best[1]}


def _linear_in(d: Expr, v: str) -> bool:
    """Whether `v` occurs in `d` only as a plain factor, at most once per monomial."""
    for m in d.terms:
        count = 0
        for a in m:
            if a.kind == "sym":
                count += a.name == v
            elif any(v in x.symbols() for x in a.args):
                return False
        if count > 1:
            return False
    return True


def _solve_for(d: Expr, v: str, env: dict):
    """The value of `v` that makes `d == 0` when every other symbol takes its value in `env`;
    `_ANY` when every value does, None when none does (or it cannot be evaluated)."""
    coeff, rest = 0, 0
    try:
        for m, c in d.terms.items():
            others = tuple(a for a in m if not (a.kind == "sym" and a.name == v))
            x = _monomial(others, c, env)
            if len(others) < len(m):
                coeff += x
            else:
                rest += x
    except (Undecided, KeyError, RecursionError):
        return None
    if coeff == 0:
        return _ANY if rest == 0 else None
    if rest % coeff:
        return None
    return -rest // coeff


def _monomial(m: tuple, c: int, env: dict) -> int:
    for a in m:
        c *= env[a.name] if a.kind == "sym" else value(Expr({(a,): 1}), env)
    return c


def _holds_all(env: dict, preds: list, lower: dict, upper: dict) -> bool:
    if any(x < lower.get(n, 1) or (n in upper and x > upper[n]) for n, x in env.items()):
        return False
    try:
        return all(holds(p, env) for p in preds)
    except (Undecided, KeyError, RecursionError):
        return False
