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
to find one says nothing, and the caller goes on to Z3. Last, a uniform point that fails only a
few predicates is moved one symbol at a time, up or down, then two down or up together (`_moved`).
Tests: tests/unit/test_witness.py.
"""
from __future__ import annotations

import heapq
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
_MOVED_FROM = (2, 3)  # the uniform points `_moved` starts from
_MAX_FAILING = 2  # ... when they fail at most this many predicates
_REMAINDERS = 8  # the numerators of one quotient tried (`e` = q*k + r): an exact division among them


def find_model(preds: list, lower: dict, upper: dict) -> Optional[dict]:
    """A point satisfying every predicate and the bounds, or None (see the module docstring)."""
    syms: set = set()
    for p in preds:
        syms |= p.symbols()
    if not syms or len(syms) > MAX_SYMBOLS:
        return None
    equations = _Equations([p.args[0] - p.args[1] for p in preds if p.op == "=="])
    rng = random.Random(_SEED)
    choices = list(_FIXED) + [tuple(rng.randint(2, 64) for _ in range(8)) for _ in range(_RANDOM_POINTS)]
    orders = []
    plain = [_definees(d) for d in equations.exprs]
    for aliases in (False, True):  # an alias (`C == D`) read as defining one side, then both
        defined = {v for d, got in zip(equations.exprs, plain) for v in (aliases and _alias(d)) or got}
        order = (sorted(syms - defined) + sorted(syms & defined), len(syms - defined))
        if order not in orders:
            orders.append(order)
    checks = list(preds)  # (reordered by `_holds_all`: the predicate a point failed is tried first)
    for free, tied in orders:  # the symbols past `tied` are ones an equation could define
        for seq in choices:
            for multiples in (False, True):
                env = _point(free, equations, seq, lower, upper, tied if multiples else len(free))
                if env is not None and _holds_all(env, checks, lower, upper):
                    return env
    return _moved(preds, orders[0][0], equations, lower, upper, checks)


def _moved(preds: list, free: list, equations: "_Equations", lower: dict, upper: dict,
           checks: list) -> Optional[dict]:
    """A uniform point that fails only a few predicates, moved one free symbol at a time, then
    two together. The facts of a windowed model hold at the uniform points (a window of 2 over
    a 2 x 2 map), where nothing is padded; a query asking for a padding (`0 < (w - W % w) % w`)
    holds once one size moves off the window (W = 3), while the products tying the other sizes
    are rebuilt from the moved one. A broadcast's precondition `(a == b) or (a == 1) or (b == 1)`
    holds there too, with a == b; whether a may be less than b (`max(x*q, y*q) < h`, x and y
    each either h/q or 1/q) asks for both x and y moved down. Only the free symbols the failing
    predicates mention move."""
    for base in _MOVED_FROM:
        env = _point(free, equations, (base,), lower, upper, len(free))
        if env is None:
            continue
        failing = _failing(env, preds, lower, upper)
        if failing is None or not 0 < len(failing) <= _MAX_FAILING:
            continue
        mentioned: set = set()
        for p in failing:
            mentioned |= p.symbols()
        for moves in _moves([v for v in free if v in mentioned], base):
            moved = _point(free, equations, (base,), lower, upper, len(free), moves)
            if moved is not None and _holds_all(moved, checks, lower, upper):
                return moved
            if moved is None or _division(checks[0]) is None:  # (the predicate that failed first)
                continue
            moved = _divisible(moved, preds, moves, free, equations, base, lower, upper)
            if moved is not None and _holds_all(moved, checks, lower, upper):
                return moved
    return None


def _divisible(env: Optional[dict], preds: list, moves: dict, free: list, equations: "_Equations", base: int,
               lower: dict, upper: dict) -> Optional[dict]:
    """The moved point again, with a symbol scaled so that the divisions it failed are exact:
    a size inferred for a view (`-1`) is a multiple of the windows the moved sizes make
    (`(k*C*w*w) % (C*nH*nW*w*w) == 0` wants k a multiple of nH*nW, 4 when two sides move from 2
    to 5), which no uniform value gives. Each failed `X % Y == 0` whose `X` holds a symbol as a
    plain factor of every term (and `Y` does not) scales that symbol by `Y/gcd(X, Y)`; None when
    another predicate failed, or the point had none to fix."""
    if env is None:
        return None
    failing = _failing(env, preds, lower, upper)
    if not failing or len(failing) > _MAX_FAILING:
        return None
    scaled = dict(moves)
    for p in failing:
        got = _scaling(p, env)
        if got is None or got[0] in scaled:
            return None
        scaled[got[0]] = env[got[0]] * got[1]
    return _point(free, equations, (base,), lower, upper, len(free), scaled)


def _division(p) -> Optional[tuple]:
    """(X, Y) of a predicate `X % Y == 0` (times a constant), else None."""
    if p.op != "==":
        return None
    d = p.args[0] - p.args[1]
    if len(d.terms) != 1:
        return None
    (m, _), = d.terms.items()
    if len(m) != 1 or m[0].kind != "mod":
        return None
    return m[0].args


def _scaling(p, env: dict) -> Optional[tuple]:
    """(symbol, factor) making `X % Y == 0` hold at `env` by scaling the symbol, or None."""
    xy = _division(p)
    if xy is None:
        return None
    x, y = xy
    try:
        xv, yv = value(x, env), value(y, env)
    except (Undecided, KeyError, RecursionError):
        return None
    if yv <= 0 or xv % yv == 0:
        return None
    for v in sorted(x.symbols() - y.symbols()):
        if env.get(v, 0) > 0 and _linear_in(x, v) and all(
                sum(a.kind == "sym" and a.name == v for a in t) == 1 for t in x.terms):
            return v, yv // math.gcd(xv, yv)
    return None


def _moves(names: list, base: int):
    """The moves `_moved` tries from the point where every free symbol is `base`: each symbol
    up, each down, each pair down together, then each pair up together (a window clipped to both
    sides of a derived map, `min(ws, min(-((-H)//p), -((-W)//p)))`, stays 1 until both sides
    grow: then it is 2 over a 3 x 3 map, and pads)."""
    ups = (base + 1, base + 2, 2 * base + 1)
    for name in names:
        for x in ups:
            yield {name: x}
    for name in names:
        yield {name: base - 1}
    for i, one in enumerate(names):
        for other in names[i + 1:]:
            yield {one: base - 1, other: base - 1}
    for x in ups:
        for i, one in enumerate(names):
            for other in names[i + 1:]:
                yield {one: x, other: x}


def _failing(env: dict, preds: list, lower: dict, upper: dict) -> Optional[list]:
    """The predicates that do not hold at `env` (None when one cannot be evaluated there)."""
    if not _within(env, lower, upper):
        return None
    try:
        return [p for p in preds if not holds(p, env)]
    except (Undecided, KeyError, RecursionError):
        return None


class _Equations:
    """The equations of one query, with what every point built for it asks of them again: each
    one's symbols, the equations holding a symbol, and whether a symbol occurs linearly (a query
    of tens of equations over tens of symbols is tried at up to 36 points)."""

    def __init__(self, exprs: list):
        self.exprs = exprs
        self.symbols = [tuple(d.symbols()) for d in exprs]
        self.holding: dict = {}
        for i, names in enumerate(self.symbols):
            for v in names:
                self.holding.setdefault(v, []).append(i)
        self._solvable: dict = {}
        self._splits: dict = {}

    def solve(self, i: int, v: str, env: dict):
        split = self._splits.get((i, v))
        if split is None:
            d = self.exprs[i]
            split = self._splits[i, v] = _split(d, v) if _linear_in(d, v) else ()
        return _solve_for(self.exprs[i], v, env, split) if split else _solve(self.exprs[i], v, env)

    def solvable(self, i: int, v: str) -> bool:
        got = self._solvable.get((i, v))
        if got is None:
            got = self._solvable[i, v] = _solvable(self.exprs[i], v)
        return got


def _point(free: list, equations: _Equations, seq: tuple, lower: dict, upper: dict, tied: int,
           moved: Optional[dict] = None) -> Optional[dict]:
    """Symbols `free[tied:]` that no equation gave a value take a multiple of every value so far:
    a size an equation ties to a product (`C == h*(C//h)`, `C % h == 0`) is a multiple of its factors.
    Each step solves the first equation (in the query's order) left with one unknown symbol it can
    be solved for, else gives the next free symbol its value. An equation left with one unknown
    that cannot give it a value never will (the others keep theirs): it is dropped, not asked again."""
    env: dict = {}
    unknown = [len(names) for names in equations.symbols]  # symbols of each equation without a value
    ready = [i for i, n in enumerate(unknown) if n == 1]  # a heap: the first one first
    k = nxt = 0

    def assign(name: str, x: int) -> None:
        env[name] = x
        for i in equations.holding.get(name, ()):
            unknown[i] -= 1
            if unknown[i] == 1:
                heapq.heappush(ready, i)

    while len(env) < len(free):
        solved = False
        while ready:
            i = heapq.heappop(ready)
            if unknown[i] != 1:
                continue
            v = next(v for v in equations.symbols[i] if v not in env)
            if not equations.solvable(i, v):
                continue
            got = equations.solve(i, v, env)
            if got is _ANY:
                continue  # holds whatever the symbol is (its factor is 0 here): it stays free
            if got is None:
                return None
            assign(v, got)
            solved = True
            break
        if solved:
            continue
        while free[nxt] in env:
            nxt += 1
        n = free[nxt]
        x = seq[k % len(seq)]
        if moved and n in moved:
            x = moved[n]
        elif nxt >= tied:
            x *= _lcm([v for v in env.values() if 0 < v < _LCM_CAP])
        assign(n, min(max(x, lower.get(n, 1)), upper.get(n, 1 << 62)))
        k += 1
    return env


def _lcm(values: list) -> int:
    out = 1
    for v in values:
        out = out * v // math.gcd(out, v)
        if out >= _LCM_CAP:
            return 1
    return out


def _alias(d: Expr) -> set:
    """Both sides of an alias `C == D` (neither is a free choice), else nothing."""
    if len(d.terms) == 2 and all(len(m) == 1 and m[0].kind == "sym" for m in d.terms):
        return {m[0].name for m in d.terms}
    return set()


def _definees(d: Expr) -> set:
    """The symbol an equation `d == 0` is best read as defining: the one occurring linearly in a
    single monomial, the shortest such (`L` of `B*L*C == B*C*H*W`: a product is made from its factors, a factor
    taken from a product needs an exact division)."""
    best = None
    for v in sorted(d.symbols()):
        holders = [m for m in d.terms if any(a.kind == "sym" and a.name == v for a in m)]
        if len(holders) == 1 and _linear_in(d, v):
            key = (len(holders[0]), v)
            if best is None or key < best:
                best = key
    if best is None:  # `(H - p)//p + 1 == 14`: H, from the quotient it must have
        best = next(((0, v) for v in sorted(d.symbols()) if _through_floordiv(d, v) is not None), None)
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


def _solvable(d: Expr, v: str) -> bool:
    return _linear_in(d, v) or _through_floordiv(d, v) is not None


def _through_floordiv(d: Expr, v: str):
    """(c, e, k) when `d` is `c*(e//k) + rest` and `v` occurs only in `e` (where it can be solved
    for in turn) — a convolution's output size `(H - p)//s + 1` read back for its input — else None."""
    found = None
    for m, c in d.terms.items():
        if not _mentions(m, v):
            continue
        if found is not None or len(m) != 1 or m[0].kind != "floordiv":
            return None
        e, k = m[0].args
        if v in k.symbols() or not _solvable(e, v):
            return None
        found = (c, e, k)
    return found


def _mentions(m: tuple, v: str) -> bool:
    return any(a.name == v if a.kind == "sym" else any(v in x.symbols() for x in a.args) for a in m)


def _solve(d: Expr, v: str, env: dict):
    """`_solve_for`, or through a floor division: `c*(e//k) + rest == 0` needs `e//k == q` with
    q = -rest/c, so `e` is one of q*k .. q*k + k - 1, the first that `e` can be solved to."""
    if _linear_in(d, v):
        return _solve_for(d, v, env)
    div = _through_floordiv(d, v)
    if div is None:
        return None
    c, e, k = div
    try:
        rest = value(Expr({m: x for m, x in d.terms.items() if not _mentions(m, v)}), env)
        kv = value(k, env)
    except (Undecided, KeyError, RecursionError):
        return None
    if kv <= 0 or rest % c:
        return None
    q = -rest // c
    for r in range(min(kv, _REMAINDERS)):
        got = _solve(e - (q * kv + r), v, env)
        if got is not None and got is not _ANY:
            return got
    return None


def _solve_for(d: Expr, v: str, env: dict, split: Optional[tuple] = None):
    """The value of `v` that makes `d == 0` when every other symbol takes its value in `env`;
    `_ANY` when every value does, None when none does (or it cannot be evaluated)."""
    coeff, rest = split or _split(d, v)
    try:
        coeff, rest = value(coeff, env), value(rest, env)
    except (Undecided, KeyError, RecursionError):
        return None
    if coeff == 0:
        return _ANY if rest == 0 else None
    if rest % coeff:
        return None
    return -rest // coeff


def _split(d: Expr, v: str) -> tuple:
    """(the coefficient of `v`, the rest) of `d`, linear in `v`, as Exprs: made once, evaluated
    at every point (monotone.value compiles an Expr evaluated often)."""
    coeff: dict = {}
    rest: dict = {}
    for m, c in d.terms.items():
        others = tuple(a for a in m if not (a.kind == "sym" and a.name == v))
        if len(others) < len(m):
            coeff[others] = coeff.get(others, 0) + c
        else:
            rest[m] = c
    return Expr(coeff), Expr(rest)


def _within(env: dict, lower: dict, upper: dict) -> bool:
    """Every symbol of `env` within its declared bounds (a size is at least 1 unless declared)."""
    return not any(x < lower.get(n, 1) or (n in upper and x > upper[n]) for n, x in env.items())


def _holds_all(env: dict, preds: list, lower: dict, upper: dict) -> bool:
    """Whether every predicate of `preds` holds at `env` (one that cannot be evaluated there does
    not). The one that fails (or cannot be evaluated) moves to the front of `preds`: the next
    point of the same search mostly fails it too, and is then rejected after one evaluation, not
    after all those before it (timm's swin: its ~1,770 failed searches 10.9 -> 5.9 CPU s). The
    answer is the same in any order."""
    if not _within(env, lower, upper):
        return False
    i = 0
    try:
        for i, p in enumerate(preds):
            if not holds(p, env):
                break
        else:
            return True
    except (Undecided, KeyError, RecursionError):
        pass
    if i:
        preds.insert(0, preds.pop(i))
    return False
