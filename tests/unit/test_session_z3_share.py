"""solver/contexts.Session.rlimit: once a job has had UNDECIDED_AT_FULL queries that Z3 left
undecided at the full resource limit, its later queries get a two-hundredth of it, so a file of
nonlinear floor-division formulas no longer spends seconds on each; cheap queries are still
decided, and an answer is recalled only under the limit it was given with (answers.key)."""
from __future__ import annotations

import pytest

from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import eq, ne
from shapehint.solver import answers, contexts
from shapehint.solver.contexts import Session
from shapehint.solver.facts import FactStore, Limits

X = Expr.sym("x")
FULL = 200_000
# x % 14 == 4 leaves x % 7 == 4: refuting x % 7 == 3 takes Z3 (modulo is outside solver/bounds.py)
FACT, CHEAP = eq(X % 14, 4), ne(X % 7, 3)


@pytest.fixture(autouse=True)
def _empty(monkeypatch):
    monkeypatch.setattr(answers, "_ANSWERS", {})


def _store(session):
    st = FactStore(Limits(timeout_ms=60_000, rlimit=FULL), session=session)
    st.add(FACT)
    st.asked = []
    real = st._solve

    def spy(s, assumptions, rlimit):
        st.asked.append(rlimit)
        return real(s, assumptions, rlimit)
    st._solve = spy
    return st


def _fermat(k: int):
    """x³ + y³ = z³ over positive integers, new symbols each time (no cache answers it): beyond
    Z3's nonlinear procedures at any limit here."""
    x, y, z = (Expr.sym(f"{n}{k}") for n in "xyz")
    return eq(x * x * x + y * y * y, z * z * z)


def _exhaust(st):
    for k in range(contexts.UNDECIDED_AT_FULL):
        assert st.possible(_fermat(k))[0] is None


def test_after_the_undecided_queries_the_job_asks_with_a_small_limit():
    session = Session()
    st = _store(session)
    _exhaust(st)
    assert st.asked == [FULL] * contexts.UNDECIDED_AT_FULL
    assert session.undecided == contexts.UNDECIDED_AT_FULL
    st.possible(_fermat(100))
    assert st.asked[-1] == FULL // 200
    # undecided at the small limit counts no further (the count is of full-limit queries)
    assert session.undecided == contexts.UNDECIDED_AT_FULL


def test_a_cheap_query_is_still_decided_under_the_small_limit():
    st = _store(Session())
    _exhaust(st)
    assert st.entails(CHEAP) is True and st.asked[-1] == FULL // 200


def test_each_job_starts_with_the_full_limit():
    _exhaust(_store(Session()))
    fresh = _store(Session())
    fresh.possible(_fermat(7))
    assert fresh.asked == [FULL]


def test_an_answer_is_recalled_only_under_the_limit_it_was_given_with():
    full = _store(Session())
    assert full.entails(CHEAP) is True and full.asked == [FULL]
    again = _store(Session())
    assert again.entails(CHEAP) is True and again.asked == []  # recalled: no Z3 call
    tired = _store(Session())
    _exhaust(tired)
    n = len(tired.asked)
    assert tired.entails(CHEAP) is True and tired.asked[n:] == [FULL // 200]  # asked, not recalled


def test_a_store_without_a_job_always_asks_with_the_full_limit():
    st = _store(None)
    for k in range(contexts.UNDECIDED_AT_FULL + 2):
        st.possible(_fermat(k))
    assert set(st.asked) == {FULL}


def test_within_fewer_at_full_the_limit_drops_after_that_many_more():
    """A part of the job (a factory's sized forward) may leave `n` more queries undecided at the
    full limit; then its queries get the small one, and after it the job's own allowance is back."""
    session = Session()
    st = _store(session)
    st.possible(_fermat(0))  # one of the job's allowance spent before
    with session.fewer_at_full(1):
        st.possible(_fermat(1))
        st.possible(_fermat(2))
        assert session.at_full == 2
    assert st.asked == [FULL, FULL, FULL // 200]
    assert session.at_full == contexts.UNDECIDED_AT_FULL
    st.possible(_fermat(3))
    assert st.asked[-1] == FULL  # the job's allowance (6) is not spent: 2 undecided so far


def test_fewer_at_full_never_raises_the_job_allowance():
    session = Session()
    st = _store(session)
    _exhaust(st)
    with session.fewer_at_full(3):
        st.possible(_fermat(50))
    assert st.asked[-1] == FULL // 200
