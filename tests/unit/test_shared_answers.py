"""solver/answers.py: a definite answer Z3 gave one fact store serves every store of the process
that asks the same slice under the same bounds (the rank search's re-analyses, a model's
contexts), without a Z3 call; other bounds, or a query asked for its core, go to Z3."""
from __future__ import annotations

import pytest

from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import eq, ne
from shapehint.solver import answers
from shapehint.solver.facts import FactStore

X = Expr.sym("x")
MOD = eq(X % 7, 3)  # modulo constraints are outside the no-Z3 procedure (test_solver.Z3_ONLY)


@pytest.fixture(autouse=True)
def _empty(monkeypatch):
    monkeypatch.setattr(answers, "_ANSWERS", {})


def _store(lo=None, facts=(ne(X, 3),)):
    st = FactStore()
    if lo is not None:
        st.declare("x", lo)
    for f in facts:
        st.add(f)
    return counting(st)


def counting(st):
    """`st`, counting in `z3_calls` the times it asks Z3 (test_alike_answers.py too)."""
    st.z3_calls = 0
    real = st._incremental

    def counted():
        st.z3_calls += 1
        return real()
    st._incremental = counted
    return st


def test_a_second_store_takes_a_satisfiable_answer_and_its_model():
    first, second = _store(), _store()
    assert first.entails(ne(X % 7, 3)) is False and first.z3_calls == 1
    assert second.entails(ne(X % 7, 3)) is False
    assert second.z3_calls == 0 and second.queries == 1  # still a question asked of the facts
    x = second._hint["x"]  # Z3's model, the next query's first guess as in the first store
    assert x % 7 == 3 and x != 3


def test_a_refuted_query_is_refuted_for_the_next_store_too():
    facts = (ne(X, 3), MOD)
    first, second = _store(facts=facts), _store(facts=facts)
    assert first.entails(ne(X % 7, 4)) is True and first.z3_calls == 1
    assert second.entails(ne(X % 7, 4)) is True and second.z3_calls == 0


def test_other_bounds_ask_z3_again():
    first, second = _store(), _store(lo=20)
    assert first.entails(ne(X % 7, 3)) is False
    assert second.entails(ne(X % 7, 3)) is False and second.z3_calls == 1
    assert second._hint["x"] >= 20


def test_a_query_asked_for_its_core_is_the_stores_own():
    first, second = _store(), _store()
    assert first.entails(ne(X % 7, 3)) is False
    assert second.possible(MOD)[0] is True and second.z3_calls == 1


def test_a_core_query_keeps_nothing_and_the_memo_stays_bounded(monkeypatch):
    monkeypatch.setattr(answers, "MAX_ANSWERS", 3)
    answers.keep(None, True, None)  # a query asked for its core has no key
    assert not answers._ANSWERS
    limits = FactStore().limits
    for k in range(10):
        answers.keep(answers.key(frozenset(), (eq(X % 7, k),), {}, {}, (limits.timeout_ms, limits.rlimit)), True, None)
        assert len(answers._ANSWERS) <= 3
