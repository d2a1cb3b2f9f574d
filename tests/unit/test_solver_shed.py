"""FactStore._shed: the incremental Z3 solver keeps every fact it was ever asked about (guarded,
but internalized); once it holds far more than a query's slice needs, the store starts it afresh
with that slice only. The answers, unsat cores included, stay those of the same formula."""
from __future__ import annotations

import pytest

from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import eq, ne
from shapehint.solver import answers, facts as facts_mod
from shapehint.solver.facts import FactStore

X = Expr.sym("x")


@pytest.fixture(autouse=True)
def _empty(monkeypatch):
    monkeypatch.setattr(answers, "_ANSWERS", {})
    monkeypatch.setattr(answers, "_DECIDED", {})


def _crowded(n: int) -> FactStore:
    """A store whose solver was asked `n` questions about unrelated symbols (modular ones: outside
    the no-Z3 procedure, so each reaches Z3), then holds facts about x."""
    st = FactStore()
    for i in range(n):
        y = Expr.sym(f"y{i}")
        st.add(ne(y, 3), origin=f"y{i}")
        assert st.possible(eq(y % 7, 3))[0] is True
    st.add(ne(X, 3), origin="x-fact")
    return st


def test_a_small_slice_after_many_unrelated_queries_gets_a_solver_of_its_own(monkeypatch):
    monkeypatch.setattr(facts_mod, "SHED_SLACK", 10_000)
    st = _crowded(60)
    monkeypatch.setattr(facts_mod, "SHED_SLACK", 64)
    assert len(st._lits) > facts_mod.SHED_FACTOR * 2 + facts_mod.SHED_SLACK
    assert st.possible(eq(X % 7, 3))[0] is True
    assert len(st._lits) <= 2  # the x fact and the query, nothing of the y's
    st.add(eq(X % 7, 3), origin="x-mod")
    assert st.possible(eq(X % 7, 4)) == (False, ["x-mod"])  # the core still names the fact's origin


def test_a_solver_within_the_slack_is_kept(monkeypatch):
    monkeypatch.setattr(facts_mod, "SHED_SLACK", 10_000)
    st = _crowded(60)
    held = len(st._lits)
    assert held > 2 * 30
    assert st.possible(eq(X % 7, 3))[0] is True
    assert len(st._lits) > held  # asserted alongside the earlier facts, not afresh


def test_answers_after_a_rebuild_are_those_of_the_same_formula():
    st = _crowded(60)
    assert len(st._lits) <= facts_mod.SHED_FACTOR * 2 + facts_mod.SHED_SLACK + 2  # it never grew past
    st.add(eq(X % 7, 3))
    assert st.entails(ne(X % 7, 4)) is True
    assert st.entails(ne(X, 10)) is False  # x = 10 satisfies both facts
    assert st.decide(eq(X, 17)) is None
