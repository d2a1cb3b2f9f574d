"""The no-Z3 decision procedure (solver/bounds.py) agrees with Z3 wherever it answers.

Property tests draw small constraint sets (linear terms, floor division and modulo by
constants, max/min, disjunctions, `!=`) and compare the verdict, the lexicographic minimum and
the unsat cores with Z3 over the same encoding the FactStore uses.
"""
from __future__ import annotations

import z3
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from shapehint.shapes.expr import Expr, emax, emin
from shapehint.shapes.shape import Pred, conj, disj, eq, ge, le, lt, ne
from shapehint.solver import bounds, propagation
from shapehint.solver.facts import FactStore

NAMES = ("a", "b", "c")
SYM = {n: Expr.sym(n) for n in NAMES}


def _z3(preds, lower, upper, minimize=()):
    """(sat?, lexicographic minimum of `minimize` or None) by Z3, bypassing the fast path."""
    enc = FactStore()
    enc._load()
    s = z3.Optimize(ctx=enc._ctx)
    s.set(timeout=5000)  # nonlinear draws (a*b) can send Optimize into a long search
    for p in preds:
        s.add(enc._enc_pred(p))
    for n in set().union(*[p.symbols() for p in preds]) | set(minimize):
        v = enc._var(n)
        s.add(v >= lower.get(n, 1))
        if n in upper:
            s.add(v <= upper[n])
    for n in minimize:
        s.minimize(enc._var(n))
    r = s.check()
    assume(r != z3.unknown)  # Z3 gave up: no reference answer for this draw
    if r == z3.unsat:
        return False, None
    m = s.model()
    return True, {n: m.eval(enc._var(n), model_completion=True).as_long() for n in minimize}


def _holds_in_z3(preds, point) -> bool:
    enc = FactStore()
    enc._load()
    s = z3.Solver(ctx=enc._ctx)
    for p in preds:
        s.add(enc._enc_pred(p))
    for n, v in point.items():
        s.add(enc._var(n) == v)
    return s.check() == z3.sat


# ---- strategies --------------------------------------------------------------

@st.composite
def exprs(draw, depth=2):
    e = Expr.const(draw(st.integers(-6, 6)))
    for n in draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=2)):
        e = e + draw(st.sampled_from([1, 1, 2, -1, 3])) * SYM[n]
    if depth > 0:
        kind = draw(st.sampled_from(["none", "none", "div", "mod", "max", "min", "mul"]))
        if kind == "div":
            e = e // draw(st.integers(1, 4))
        elif kind == "mod":
            e = e % draw(st.integers(2, 4))
        elif kind in ("max", "min"):
            other = draw(exprs(depth=depth - 1))
            e = emax(e, other) if kind == "max" else emin(e, other)
        elif kind == "mul":
            e = e * SYM[draw(st.sampled_from(NAMES))]
    return e


@st.composite
def preds(draw):
    a, b = draw(exprs()), draw(exprs(depth=0))
    kind = draw(st.sampled_from(["==", "<=", "<", "!=", "or", "<=", "=="]))
    if kind == "or":
        return disj(eq(a, b), lt(draw(exprs(depth=0)), draw(exprs(depth=0))))
    return {"==": eq, "<=": le, "<": lt, "!=": ne}[kind](a, b)


@st.composite
def problems(draw):
    ps = [p for p in draw(st.lists(preds(), min_size=1, max_size=4)) if not p.is_true]
    lower = {n: draw(st.integers(0, 3)) for n in NAMES if draw(st.booleans())}
    upper = {n: draw(st.integers(3, 40)) for n in NAMES if draw(st.booleans())}
    return ps, lower, upper


SETTINGS = settings(max_examples=200, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@SETTINGS
@given(problems())
def test_verdicts_agree_with_z3(problem):
    ps, lower, upper = problem
    if any(p.is_false for p in ps):
        return
    verdict, model = bounds.solve(ps, lower, upper)
    sat, _ = _z3(ps, lower, upper)
    if verdict == "sat":
        assert sat and _holds_in_z3(ps, model)
    elif verdict == "unsat":
        assert not sat


@SETTINGS
@given(problems(), st.permutations(NAMES))
def test_minimum_is_the_lexicographic_optimum(problem, order):
    ps, lower, upper = problem
    if any(p.is_false for p in ps):
        return
    verdict, model = bounds.solve(ps, lower, upper, order)
    if verdict != "sat":
        return
    sat, best = _z3(ps, lower, upper, order)
    assert sat
    assert {n: model.get(n, lower.get(n, 1)) for n in order} == best


@SETTINGS
@given(problems(), preds())
def test_cores_are_unsatisfiable_in_z3(problem, query):
    ps, lower, upper = problem
    if any(p.is_false for p in ps) or query.is_false:
        return
    kept = bounds.unsat_core(ps, [query], lower, upper)
    if kept is None:
        return
    assert not _z3([ps[i] for i in kept] + [query], lower, upper)[0]


def test_convolution_chain_minimum():
    # AlexNet's feature extractor: the smallest input side whose sizes stay >= 1
    h = SYM["a"]
    s = (h - 3) // 4
    facts = [ge(s, 1), ge((s - 1) // 2, 1), ge(((s - 1) // 2 - 1) // 2, 1), ge((((s - 1) // 2 - 1) // 2 - 1) // 2, 1)]
    verdict, model = bounds.solve(facts, {}, {}, ["a"])
    assert verdict == "sat" and model["a"] == 63


def test_equality_links_bounds_and_splits_disequalities():
    a, b = SYM["a"], SYM["b"]
    verdict, model = bounds.solve([le(200, a), le(a, 300), eq(a, b), ge(b, 63)], {}, {}, ["a", "b"])
    assert verdict == "sat" and (model["a"], model["b"]) == (200, 200)
    assert bounds.solve([eq(a, 4), ne(a, 4)], {}, {})[0] == "unsat"
    verdict, model = bounds.solve([le(a, 5), ne(a, 1), ne(a, 2)], {}, {}, ["a"])
    assert verdict == "sat" and model["a"] == 3


def test_outside_the_fragment_it_defers_to_z3():
    x, y, z = SYM["a"], SYM["b"], SYM["c"]
    assert bounds.solve([eq(x * x * x + y * y * y, z * z * z)], {n: 2 for n in NAMES}, {}) == (None, None)
    assert bounds.solve([eq(x // (y - 3), 1)], {}, {})[0] in (None, "sat")


def test_core_names_the_conflicting_fact():
    a, b = SYM["a"], SYM["b"]
    facts = [ge(b, 2), eq(a, 3), le(b, 10)]
    assert bounds.unsat_core(facts, [eq(a, 4)], {}, {}) == [1]


def test_equalities_are_substituted_for_satisfiability():
    # a broadcasting check in a ResNet bottleneck: intervals alone never close this
    s, i, p = SYM["a"], SYM["b"], SYM["c"]
    facts = [eq(s, i), disj(eq(4 * p, s), eq(4 * p, 1), eq(s, 1))]
    assert bounds.solve(facts + [lt(4 * p, s)], {}, {})[0] == "unsat"
    verdict, model = bounds.solve([eq(s, i), eq(i, 2 * p + 1), lt(p, 3)], {}, {})
    assert verdict == "sat" and model["a"] == model["b"] == 2 * model["c"] + 1


def _tangle():
    """swin_transformer's rank search: three-way `or`s of products (broadcasting's "equal or 1")
    that propagation cannot settle: ~300 propagations over the case splits, for an answer of None."""
    n2, n3, w, n6, n7 = (Expr.sym(n) for n in ("n2", "n3", "w", "n6", "n7"))
    one, a, b = Expr.const(1), n2 * n3, n6 * n7
    return [disj(eq(a, w), eq(a, one), eq(w, one)), disj(eq(a, emax(a, w)), eq(a, one), eq(emax(a, w), one)),
            eq(emax(a, w), a), disj(eq(b, w), eq(b, one), eq(w, one)), lt(b, w)]


LOWER = {"n2": 0, "n3": 0, "n6": 0, "n7": 0}


def _count_calls(monkeypatch, name: str, module=bounds) -> list:
    """Replace module.<name> with a wrapper that counts its calls (the work a query spends)."""
    calls = [0]
    real = getattr(module, name)

    def counting(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def test_a_tangle_of_disjunctions_is_left_to_z3_within_the_work_budget(monkeypatch):
    calls = _count_calls(monkeypatch, "propagate")
    verdict, _ = bounds.solve(_tangle(), LOWER, {})
    assert verdict is None and calls[0] <= bounds.MAX_PROPAGATIONS
    want = _z3(_tangle(), LOWER, {})[0]
    st = FactStore()  # undecided here: the FactStore asks Z3, which answers it
    for n, lo in LOWER.items():
        st.declare(n, lo)
    assert st.possible(conj(*_tangle()))[0] is want


def test_quick_sat_raises_one_symbol_where_every_uniform_point_fails():
    """torchvision's SSD head: a view's divisibility fact admits no uniform point but all-ones,
    and the question is whether the quotient can be other than 1 — Z3 took ~0.2 s per such
    query (30 of them made the file's analysis 3.7 s)."""
    a, b, c, k = (Expr.sym(n) for n in ("a", "b", "c", "k"))
    fact = eq((a * b) % (c * b * k), 0)
    query = ne(Expr.const(1), b * k * ((a * b) // (c * b * k)))
    assert bounds.quick_sat([fact, query], {}, {}) is True
    # Z3 confirms it on a witness (its own search over this nonlinear pair can time out)
    assert _holds_in_z3([fact, query], {"a": 2, "b": 1, "c": 1, "k": 1})
    assert bounds.quick_sat([fact, query, lt(a, c)], {}, {}) is False  # never claims what fails


def test_a_query_over_many_facts_stops_within_the_tightening_budget(monkeypatch):
    """One propagation over hundreds of facts is thousands of tightenings (diffusers' Kandinsky3
    blocks: 2.6M evaluations for one migration): the query stops at MAX_TIGHTENINGS and Z3 decides."""
    xs = [Expr.sym(f"x{i}") for i in range(30)]  # 436 facts: ~1,600 tightenings to settle
    preds = [ge(xs[j] * 3, xs[i] + j - i) for i in range(30) for j in range(i + 1, 30)] + [disj(eq(xs[0], 3), eq(xs[29], 7))]
    calls = _count_calls(monkeypatch, "tighten", propagation)
    verdict, _ = bounds.solve(preds, {}, {})
    assert verdict is None and calls[0] == bounds.MAX_TIGHTENINGS
    st = FactStore()  # which Z3 then answers
    assert st.possible(conj(*preds))[0] is True
