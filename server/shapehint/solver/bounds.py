"""Deciding shape facts without Z3: interval propagation plus candidate points.

Most questions the analysis and the migration answers ask are about a handful of dimension
symbols under bounds, equalities and monotone size formulas (`(H - 3)//4 + 1 >= 1`). Creating a
Z3 context and solver costs more than deciding those in Python, so `FactStore` asks here first
and calls Z3 only when this module answers `None`.

`solve(preds, lower, upper, order)` returns `(verdict, model)`:
  "sat"    `model` satisfies every predicate (checked by evaluating them, so this is never
           wrong). When the model is returned with `order`, it is the lexicographic minimum of
           the `order` symbols over all solutions (see below) — what `Optimize` with one
           `minimize` per symbol, in order, gives.
  "unsat"  propagation emptied some symbol's interval: no solution exists.
  None     undecided; the caller asks Z3.

Propagation is sound: for a constraint `g >= 0` that is monotone in each of its symbols (sums of
products of non-negative monotone atoms; floor division and modulo only by positive constants),
`g`'s largest value over the current box with symbol `v` fixed to `t` is `g` at the other
symbols' extremes, a monotone function of `t`, so a binary search on it gives a bound every
solution of the constraint meets. Symbols not bounded from below by the facts start at their
declared lower bound (1 for a dimension), as in the Z3 encoding.

Why the minimum is exact: when the point of all lower bounds satisfies the constraints, no
solution is below it in any coordinate. Otherwise symbols are fixed one at a time, in `order`,
to their lower bound, propagating after each; each fixed value is a lower bound for the
solutions that agree on the symbols fixed before, so if the final point is a solution, it is
the lexicographic minimum. A disjunction (`!=`, `or`) the point violates is split into its cases
(a bounded number of times); the minimum is then the least of the cases' minima. The whole
query may spend `MAX_PROPAGATIONS` propagations: a tangle of disjunctions past that is Z3's,
which settles such queries in about a millisecond where the case splits took tens.

For satisfiability alone, symbols that a linear equality defines (`s == 4*p`) are first
substituted away, which exposes contradictions intervals cannot see (`4*p == s ∧ 4*p < s`).

Division semantics match the Z3 encoding only for positive divisors; any other divisor makes
the evaluation (and so this module) give up. Tests: tests/unit/test_bounds.py.
"""
from __future__ import annotations

from typing import Iterable, Optional

from ..shapes.expr import Expr
from ..shapes.shape import Pred, ge
from . import answers
from .monotone import Undecided, holds, value
from .propagation import Empty, constraints, difference, holding, propagate, spend
from .witness import find_model

MAX_SYMBOLS = 48
MAX_PREDS = 600
MAX_SPLITS = 3
# propagations per `solve` (case splits multiply them: three 3-way disjunctions are 27 cases):
# past it the query is undecided and goes to Z3, which is faster on such a tangle
MAX_PROPAGATIONS = 16
MAX_TIGHTENINGS = 600  # and constraint tightenings (one propagation over hundreds of facts is thousands)
MAX_CORE = 40
QUICK_FIRST = 4  # queries of at most this many predicates try candidate points before propagation


def decide_without_z3(preds: list, lower: dict, upper: dict, memo: Optional[dict], hint: dict) -> Optional[bool]:
    """True/False when interval reasoning or a candidate point settles satisfiability; None: ask
    Z3. A small query (a precondition's few facts: `32*S == 32` for a stride check) tries points
    first: most are satisfiable, a point costs half a propagation; a larger one would try many in
    vain. `hint` (a store's last model, FactStore._hint) is tried, and takes the point that held.
    What the points and the hint did not decide quickly is shared by every store of the process
    (answers.recall_decided)."""
    if len(preds) <= QUICK_FIRST and quick_sat(preds, lower, upper):
        return True
    k = answers.key(frozenset(preds), (), lower, upper, ())
    got = answers.recall_decided(k)
    if got is None:
        got = _decide_at_bounds(preds, lower, upper, memo, hint)
        answers.keep_decided(k, got)
    elif got[0] is None and hint:  # (this store's own model, which the first asker may not have had)
        point = hinted_sat(preds, lower, upper, hint)
        if point is not None:
            got = (True, point)
    verdict, point = got
    hint.update(point or {})
    return verdict


def _decide_at_bounds(preds: list, lower: dict, upper: dict, memo: Optional[dict], hint: dict) -> tuple:
    """(verdict or None, the point to take as the next hint or None)."""
    verdict, _ = solve(preds, lower, upper, memo=memo)
    if verdict is not None:
        return verdict == "sat", None
    if hint:
        point = hinted_sat(preds, lower, upper, hint)
        if point is not None:
            return True, point
    point = {} if quick_sat(preds, lower, upper) else find_model(preds, lower, upper)
    # (a witness built from the equations: the last try before Z3)
    return (None, None) if point is None else (True, point)


def solve(preds: list, lower: dict, upper: dict, order: Iterable[str] = (), memo: Optional[dict] = None):
    """See the module docstring. `lower`/`upper`: declared bounds (a symbol not in `lower` is >= 1);
    `memo`: a dict the caller keeps for predicates it asks about repeatedly."""
    syms: set = set()
    for p in preds:
        syms |= p.symbols()
    if len(syms) > MAX_SYMBOLS or len(preds) > MAX_PREDS:
        return None, None
    order = list(order)
    need_min = bool(order)
    order = [n for n in order if n in syms] + sorted(syms.difference(order))
    try:
        return _solve(list(preds), syms, lower, upper, order, MAX_SPLITS, need_min, memo, [MAX_PROPAGATIONS, MAX_TIGHTENINGS])
    except (Undecided, RecursionError, KeyError):
        return None, None


def intervals(preds: list, lower: dict, upper: dict, memo: Optional[dict] = None):
    """(lo, hi) per symbol after propagation (a symbol missing from hi is unbounded above), or
    None when the predicates are contradictory or outside what this module evaluates."""
    syms: set = set()
    for p in preds:
        syms |= p.symbols()
    if len(syms) > MAX_SYMBOLS or len(preds) > MAX_PREDS:
        return None
    lo = {n: lower.get(n, 1) for n in syms}
    hi = {n: upper[n] for n in syms if n in upper}
    try:
        propagate(constraints(preds, lo, memo), lo, hi)
    except (Empty, Undecided, RecursionError, KeyError):
        return None
    return lo, hi


def _solve(preds: list, syms: set, lower: dict, upper: dict, order: list, splits: int, need_min: bool,
           memo: Optional[dict], work: list):
    verdict, model = _solve_bounds(preds, syms, lower, upper, order, splits, need_min, memo, work)
    if verdict is not None or need_min:
        return verdict, model
    reduced = _eliminate(preds, lower, upper)  # only when needed: most queries are decided above
    if reduced is False:
        return "unsat", None
    if reduced is None:
        return None, None
    rest, solved = reduced
    rest_syms: set = set()
    for p in rest:
        rest_syms |= p.symbols()
    verdict, model = _solve(rest, rest_syms, lower, upper, sorted(rest_syms), splits, False, memo, work)
    if verdict == "sat":
        for v, e in reversed(solved):
            model[v] = value(e, model)
    return verdict, model


def _solve_bounds(preds: list, syms: set, lower: dict, upper: dict, order: list, splits: int, need_min: bool,
                  memo: Optional[dict], work: list):
    lo = {n: lower.get(n, 1) for n in syms}
    hi = {n: upper[n] for n in syms if n in upper}
    for n in syms:
        if n in hi and hi[n] < lo[n]:
            return "unsat", None
    cons = constraints(preds, lo, memo)
    try:
        spend(work)
        propagate(cons, lo, hi, work=work)
    except Empty:
        return "unsat", None
    point = dict(lo)
    violated = [i for i, p in enumerate(preds) if not holds(p, point)]
    if not violated:
        return "sat", point
    if all(preds[i].op in _DISJUNCTIVE for i in violated):
        # only case splits can repair these (fixing symbols keeps the point where it is)
        return _split(preds, violated[0], syms, lower, upper, order, splits, need_min, memo, work)
    # fix the symbols one at a time (see the module docstring)
    index = holding(cons)
    for n in order:
        hi[n] = lo[n]
        try:
            spend(work)
            propagate(cons, lo, hi, (n,), work, index)
        except Empty:
            break
    else:
        point = dict(lo)
        if all(holds(p, point) for p in preds):
            return "sat", point
    target = next((i for i in violated if preds[i].op in _DISJUNCTIVE), None)
    if target is None:
        target = next((i for i, p in enumerate(preds) if p.op in _DISJUNCTIVE), None)
    if target is None:
        return None, None
    return _split(preds, target, syms, lower, upper, order, splits, need_min, memo, work)


_DISJUNCTIVE = ("!=", "or")


def _eliminate(preds: list, lower: dict, upper: dict):
    """Substitute away symbols that a linear equality gives as `v = e` (coefficient ±1): bounds
    alone cannot see `4*p == s ∧ 4*p < s`, the substitution makes it `False`. Only for
    satisfiability (it changes which symbols the lexicographic order would fix first).
    Returns None (nothing to do), False (a predicate became false), or (preds, [(v, e)...])
    where each `v` takes `e`'s value in a model of the remaining predicates."""
    preds = list(preds)
    solved: list = []
    while True:
        found = None
        for i, p in enumerate(preds):
            if p.op != "==":
                continue
            d = difference(p.args[0], p.args[1], 0)
            for m, c in d.terms.items():
                if c in (1, -1) and len(m) == 1 and m[0].kind == "sym":
                    v = m[0].name
                    rest = {k: x for k, x in d.terms.items() if k != m}
                    e = Expr({k: -c * x for k, x in rest.items()})
                    if v not in e.symbols():
                        found = (i, v, e)
                        break
            if found:
                break
        if found is None:
            break
        i, v, e = found
        keep = [ge(e, lower.get(v, 1))]
        if v in upper:
            keep.append(ge(upper[v], e))
        out = []
        for j, p in enumerate(preds):
            if j == i:
                continue
            out.append(p.subs({v: e}) if v in p.symbols() else p)
        out += keep
        if any(p.is_false for p in out):
            return False
        preds = [p for p in out if not p.is_true]
        solved.append((v, e))
    return (preds, solved) if solved else None


def _split(preds: list, target: int, syms: set, lower: dict, upper: dict, order: list, splits: int,
           need_min: bool, memo: Optional[dict], work: list):
    """Solve each case of the disjunction `preds[target]`; the least model of the cases."""
    if splits <= 0:
        return None, None
    p = preds[target]
    rest = preds[:target] + preds[target + 1:]
    if p.op == "!=":
        a, b = p.args
        # sizes are bounded below and rarely above: `size != c` mostly holds above c, try that first
        cases = [Pred("<", (b, a)), Pred("<", (a, b))] if b.is_const else [Pred("<", (a, b)), Pred("<", (b, a))]
    else:
        cases = list(p.args)
    best, undecided = None, False
    for case in cases:
        verdict, model = _solve(rest + [case], syms, lower, upper, order, splits - 1, need_min, memo, work)
        if verdict == "sat" and not need_min:
            return verdict, model  # any model will do
        if verdict is None:
            undecided = True
        elif verdict == "sat":
            key = tuple(model[n] for n in order)
            if best is None or key < best[0]:
                best = (key, model)
    if undecided:
        return None, None  # an undecided case may hold a smaller model, or the only one
    if best is None:
        return "unsat", None
    return "sat", best[1]


def quick_sat(preds: list, lower: dict, upper: dict) -> bool:
    """Sound for sat: try a few uniform points (symbols fixed by a one-symbol equation take
    that value), which finds models of constraints propagation cannot use (`H % 2 == 0`)."""
    syms: set = set()
    for p in preds:
        syms |= p.symbols()
    if len(syms) > 24:
        return False
    solved: dict = {}
    for p in preds:
        if p.op != "==":
            continue
        d = p.args[0] - p.args[1]
        ds = d.symbols()
        if len(ds) == 1 and len(d.terms) <= 2:
            name = next(iter(ds))
            mono = next((m for m in d.terms if m != ()), None)
            coeff = d.terms.get(mono, 0)
            if mono is not None and len(mono) == 1 and mono[0].kind == "sym" and coeff in (1, -1):
                solved.setdefault(name, -d.const_part() * coeff)
    for env in _candidates(syms, solved, lower):
        ok = _satisfied(env, preds, lower, upper)
        if ok is None:  # outside what is evaluated here: no other point will be either
            return False
        if ok:
            return True
    return False


def hinted_sat(preds: list, lower: dict, upper: dict, hint: dict) -> Optional[dict]:
    """Sound for sat: the point `hint` (an earlier query's model, FactStore._hint) with the
    symbols it lacks filled in — `v == e` takes e's value there, the rest their lower bound —
    when every predicate holds at it; else None. Facts grow along a path, and most of a new
    query's symbols are fresh ones an equation defines (`?199 == out_channels//2`): the last
    model usually still fits, where a search would end in a Z3 call (~0.1 s on a UNet's facts)."""
    syms: set = set()
    for p in preds:
        syms |= p.symbols()
    env = {n: hint[n] for n in syms if n in hint}
    missing = syms - env.keys()
    if missing:
        defs = [d for d in (_definition(p) for p in preds if p.op == "==") if d is not None and d[0] in missing]
        progress = True
        while missing and progress:
            progress = False
            for name, e in defs:
                if name in missing and e.symbols() <= env.keys():
                    try:
                        env[name] = value(e, env)
                    except (Undecided, RecursionError):
                        return None
                    missing.discard(name)
                    progress = True
        for n in missing:
            env[n] = lower.get(n, 1)
    return env if _satisfied(env, preds, lower, upper) else None


def _definition(p: Pred) -> Optional[tuple]:
    """(v, e) when the equation `p` reads `v == e` with `v` a symbol not in `e`."""
    d = p.args[0] - p.args[1]
    for m, c in d.terms.items():
        if len(m) == 1 and m[0].kind == "sym" and c in (1, -1):
            name = m[0].name
            rest = Expr({k: v for k, v in d.terms.items() if k != m})
            if name not in rest.symbols():
                return name, rest * (-c)
    return None


def _satisfied(env: dict, preds: list, lower: dict, upper: dict) -> Optional[bool]:
    """Whether the point is in the bounds and satisfies every predicate; None when a predicate
    cannot be evaluated there (a division by a non-positive, say)."""
    if any(v < lower.get(n, 1) or (n in upper and v > upper[n]) for n, v in env.items()):
        return False
    try:
        return all(holds(p, env) for p in preds)
    except (Undecided, RecursionError):
        return None


def _candidates(syms: set, solved: dict, lower: dict):
    """Uniform points, then the least point with one symbol raised to 2 or 3: a divisibility fact
    (`(a*b) % (c*b*k) == 0`) rules out every uniform point but 1, and the question is often
    whether anything but 1 is possible (`c*k*(a // c*k) != 1`)."""
    for base in (1, 2, 3, 7, 64):
        yield {n: solved.get(n, max(base, lower.get(n, 1))) for n in syms}
    least = {n: solved.get(n, lower.get(n, 1)) for n in syms}
    for v in (2, 3):
        for n in sorted(syms):
            if n not in solved and least[n] < v:
                yield {**least, n: v}


def unsat_core(facts: list, extra: list, lower: dict, upper: dict, memo: Optional[dict] = None) -> Optional[list]:
    """Indices of facts that, with `extra`, propagation alone proves unsatisfiable: each fact is
    dropped when the rest still is, so the core is irreducible as far as propagation can tell.
    None when propagation cannot prove the whole set unsatisfiable."""
    if len(facts) > MAX_CORE or solve(facts + extra, lower, upper, memo=memo)[0] != "unsat":
        return None
    keep = list(range(len(facts)))
    for i in range(len(facts) - 1, -1, -1):
        trial = [j for j in keep if j != i]
        if solve([facts[j] for j in trial] + extra, lower, upper, memo=memo)[0] == "unsat":
            keep = trial
    return keep


def relevant(facts: list, extra: list) -> list:
    """The facts (FactStore's, each with a `pred`) connected to the query's symbols, transitively
    through shared symbols: the others cannot make the query unsatisfiable (FactStore._check)."""
    syms: set[str] = set()
    for p in extra:
        syms |= p.symbols()
    if not extra:
        return list(facts)
    chosen = [False] * len(facts)
    fsyms = [f.pred.symbols() for f in facts]
    changed = True
    while changed:
        changed = False
        for i, s in enumerate(fsyms):
            if not chosen[i] and (s & syms or not s):
                chosen[i] = True
                syms |= s
                changed = True
    return [f for f, c in zip(facts, chosen) if c]
