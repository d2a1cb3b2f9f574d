"""Interval propagation over shape facts, for `bounds.py`: each comparison becomes `g >= 0`
constraints, and each constraint narrows its symbols' intervals until nothing moves (see
bounds.py's docstring for why the narrowing is sound). `spend` charges one query's work budget:
past it the query is `Undecided` and Z3 decides it."""
from __future__ import annotations

from typing import Iterable, Optional

from ..shapes.expr import Expr
from ..shapes.shape import Pred
from .monotone import Undecided, direction, value

CAP = 1 << 62  # no bound searched beyond this: the symbol is treated as unbounded
MAX_PASSES = 12
MEMO_MAX = 20000


class Empty(Exception):
    pass


class Constraint:
    """`sign * g >= 0`, with its direction in each of its symbols; for a linear `g`, its
    coefficients (bounds then follow in closed form, without a search)."""

    __slots__ = ("g", "sign", "syms", "dirs", "lin", "c0")

    def __init__(self, g: Expr, sign: int, lo: dict, dirs: Optional[dict] = None):
        self.g = g
        self.sign = sign
        self.syms = sorted(g.symbols())
        lin, c0 = {}, 0
        for m, c in g.terms.items():
            if m == ():
                c0 = c
            elif len(m) == 1 and m[0].kind == "sym":
                lin[m[0].name] = c * sign
            else:
                lin = None
                break
        self.lin = lin
        self.c0 = c0 * sign
        if lin is not None:
            self.dirs = None  # bounds of a linear constraint come in closed form
            return
        if dirs is None:
            memo: dict = {}  # (what each of g's atoms does, for every symbol: monotone.direction)
            dirs = {v: direction(g, v, lo, memo) for v in self.syms}
        self.dirs = dirs if sign > 0 else {v: (None if d is None else -d) for v, d in dirs.items()}


def difference(b: Expr, a: Expr, minus: int) -> Expr:
    """b - a - minus, built in one step (the generic operators allocate intermediate Exprs)."""
    terms = dict(b.terms)
    for m, c in a.terms.items():
        terms[m] = terms.get(m, 0) - c
    if minus:
        terms[()] = terms.get((), 0) - minus
    return Expr(terms)


def constraints(preds: Iterable[Pred], lo: dict, memo: Optional[dict], negative: Optional[bool] = None) -> list:
    """The `g >= 0` forms of the predicates' comparisons. `memo` (the caller's, e.g. one store's:
    the same facts are asked about again and again) keeps them per predicate; directions depend
    on the bounds only through which symbols may be negative, which is part of the key."""
    if negative is None:
        negative = any(v < 0 for v in lo.values())
    out = []
    for p in preds:
        op = p.op
        if op == "and":
            out += constraints(p.args, lo, memo, negative)
            continue
        if op not in ("==", "<=", "<"):
            continue  # disjunctions and negations are only checked at the candidate point
        key = (p, tuple(n for n in p.symbols() if lo.get(n, 1) < 0)) if negative else p
        got = memo.get(key) if memo is not None else None
        if got is None:
            d = difference(p.args[1], p.args[0], 1 if op == "<" else 0)
            first = Constraint(d, 1, lo)
            got = [first]
            if op == "==":
                got.append(Constraint(d, -1, lo, first.dirs if first.lin is None else None))
            if memo is not None:
                if len(memo) >= MEMO_MAX:
                    memo.clear()
                memo[key] = got
        out += got
    return out


def tighten(c: Constraint, lo: dict, hi: dict) -> list:
    """Narrow the intervals of `c`'s symbols; the symbols whose bounds moved. Raises Empty."""
    if c.lin is not None:
        return _tighten_linear(c, lo, hi)
    changed = []
    for v in c.syms:
        d = c.dirs[v]
        if not d:
            continue
        env = {}
        ok = True
        for w in c.syms:
            if w == v:
                continue
            dw = c.dirs[w]
            if dw is None:
                ok = False
                break
            x = hi.get(w) if dw > 0 else lo[w]
            if x is None:
                ok = False
                break
            env[w] = x
        if not ok:
            continue
        if _search(c.g, c.sign, v, d, env, lo, hi):
            changed.append(v)
    return changed


def _tighten_linear(c: Constraint, lo: dict, hi: dict) -> list:
    """c0 + sum(k_w * w) >= 0: each symbol against the others' most favourable values."""
    changed = []
    lin = c.lin
    for v, kv in lin.items():
        rest = c.c0
        for w, kw in lin.items():
            if w == v:
                continue
            x = hi.get(w) if kw > 0 else lo[w]
            if x is None:
                rest = None
                break
            rest += kw * x
        if rest is None:
            continue
        if kv > 0:  # v >= ceil(-rest / kv)
            bound = -(rest // kv)
            if bound > lo[v]:
                lo[v] = bound
                changed.append(v)
        else:  # v <= floor(rest / -kv)
            bound = rest // -kv
            h = hi.get(v)
            if h is None or bound < h:
                hi[v] = bound
                changed.append(v)
        h = hi.get(v)
        if h is not None and h < lo[v]:
            raise Empty
    return changed


def _search(g: Expr, sign: int, v: str, d: int, env: dict, lo: dict, hi: dict) -> bool:
    """Bound `v` by `max over the box of sign*g >= 0`, monotone in `v` with direction `d`."""
    def h(t: int) -> int:
        env[v] = t
        return sign * value(g, env)

    a, b = lo[v], hi.get(v)
    top = CAP if b is None else b
    if d > 0:  # solutions are an up-set: raise the lower bound to the first t with h(t) >= 0
        if h(a) >= 0:
            return False
        if b is not None and h(b) < 0:
            raise Empty
        bad, step = a, 1
        while True:  # gallop to a good point, then bisect
            t = min(bad + step, top)
            if h(t) >= 0:
                good = t
                break
            if t >= top:
                lo[v] = top  # nothing up to the cap: keep a sound bound and stop
                return True
            bad, step = t, step * 2
        lo[v] = good = _bisect(h, good, bad)
        if b is not None and good > b:
            raise Empty
        return True
    # d < 0: solutions are a down-set: lower the upper bound to the last t with h(t) >= 0
    if h(a) < 0:
        raise Empty
    if b is not None and h(b) >= 0:
        return False
    good, step = a, 1
    while True:
        t = min(good + step, top)
        if h(t) < 0:
            bad = t
            break
        if t >= top:
            return False
        good, step = t, step * 2
    hi[v] = _bisect(h, good, bad)
    return True


def _bisect(h, good: int, bad: int) -> int:
    """The last `t` from `good` towards `bad` with `h(t) >= 0` (h(good) >= 0 > h(bad), monotone between)."""
    while abs(good - bad) > 1:
        mid = (bad + good) // 2
        if h(mid) >= 0:
            good = mid
        else:
            bad = mid
    return good


def holding(cons: list) -> dict:
    """symbol -> the indices of the constraints over it: `propagate`'s worklist index, made once
    by a caller that propagates the same constraints again after fixing each symbol in turn."""
    index: dict = {}
    for i, c in enumerate(cons):
        for v in c.syms:
            index.setdefault(v, []).append(i)
    return index


def propagate(cons: list, lo: dict, hi: dict, changed_syms: Optional[Iterable[str]] = None,
              work: Optional[list] = None, index: Optional[dict] = None) -> bool:
    """Tighten to a fixpoint (bounded: MAX_PASSES tightenings per constraint on average). A
    worklist: only constraints over symbols whose bounds moved are looked at again; with
    `changed_syms`, only those symbols' constraints start on it. False when stopped early.
    `index` is `holding(cons)`, when the caller has it."""
    if index is None:
        index = holding(cons)
    if changed_syms is None:
        queue = list(range(len(cons)))
    else:
        queue = sorted({i for v in changed_syms for i in index.get(v, ())})
    queue.reverse()  # popped from the end: the constraints' own order
    queued = set(queue)
    budget = MAX_PASSES * max(len(cons), 1)
    while queue:
        budget -= 1
        if budget < 0:
            return False
        if work is not None:
            spend(work, 1)
        i = queue.pop()
        queued.discard(i)
        for v in tighten(cons[i], lo, hi):
            for j in index[v]:
                if j not in queued:
                    queued.add(j)
                    queue.append(j)
    return True


def spend(work: list, tightenings: int = 0) -> None:
    """work = [propagations left, tightenings left] of one `solve`: past either, Undecided."""
    if tightenings:
        work[1] -= tightenings
    else:
        work[0] -= 1
    if work[0] < 0 or work[1] < 0:
        raise Undecided
