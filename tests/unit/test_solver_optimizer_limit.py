"""Z3's optimizer (FactStore.model's smallest values, value_range) stops at a deterministic
resource limit, not on the clock: a minimisation it cannot finish is stopped at the same point on
a quiet machine and a loaded one, so `infer`'s signatures do not depend on the machine's load."""
import pytest
import z3

from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import eq
from shapehint.solver.contexts import OPTIMIZE_FACTOR
from shapehint.solver.facts import FactStore, Limits, Unknown

X, Y, Z = (Expr.sym(n) for n in "xyz")
RLIMIT = 2_000  # the optimizer's share: RLIMIT * OPTIMIZE_FACTOR, milliseconds of Z3's work
# a clock guard far above that work: without the optimizer's own limit, Z3 works until the clock
GUARD_MS = 3_000


def _hard_store() -> FactStore:
    """x³ + y³ = z³ over integers ≥ 2: Z3 cannot decide it within any limit."""
    st = FactStore(Limits(timeout_ms=GUARD_MS, rlimit=RLIMIT))
    for n in "xyz":
        st.declare(n, lo=2)
    st.add(eq(X * X * X + Y * Y * Y, Z * Z * Z))
    return st


def _spent(ctx) -> int:
    """The resource units Z3 has counted in `ctx` so far."""
    s = z3.Solver(ctx=ctx)
    s.check()
    st = s.statistics()
    return st.get_key_value("rlimit count") if "rlimit count" in st.keys() else 0


def _minimise_spending() -> tuple:
    st = _hard_store()
    st.model(names=["x"], minimize=["y"])  # loads the store's context (the bounds answer nothing here)
    before = _spent(st._ctx)
    got = st.model(names=["x", "y", "z"], minimize=["x", "y", "z"])
    return got, _spent(st._ctx) - before


def test_a_minimisation_z3_cannot_finish_stops_at_the_resource_limit_not_the_clock():
    got, spent = _minimise_spending()
    assert got is None  # undecided: no model, as before
    # stopped by the limit (a few units past it, for the check that reads the count), long
    # before the clock: the clock alone lets Z3 spend millions of units in GUARD_MS
    assert RLIMIT * OPTIMIZE_FACTOR <= spent <= RLIMIT * OPTIMIZE_FACTOR + 1_000


def test_the_stopped_minimisation_spends_the_same_every_time():
    assert _minimise_spending() == _minimise_spending()


def test_a_range_z3_cannot_finish_is_unknown_at_the_resource_limit():
    st = _hard_store()
    st.model(names=["x"], minimize=["y"])
    before = _spent(st._ctx)
    with pytest.raises(Unknown):
        st.value_range(X)
    assert _spent(st._ctx) - before <= RLIMIT * OPTIMIZE_FACTOR + 1_000


def test_a_minimisation_within_the_limit_is_answered():
    st = FactStore(Limits(timeout_ms=GUARD_MS, rlimit=RLIMIT))
    st.add(eq(X * Y, 12))
    st.add(eq(X % 5, 3))  # outside the no-Z3 procedure
    assert st.model(names=["x", "y"], minimize=["x"]) == {"x": 3, "y": 4}
