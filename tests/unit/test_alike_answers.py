"""solver/alike.py: within one job (a `contexts.Session`), a definite answer Z3 gave is recalled for
the same formula over other symbols (a repeated block's own sizes), its model renamed back;
never for another job, other bounds, another formula, nor for an unsat core. And
`FactStore.possible(p, core=False)`: the verdict alone, so it is recalled like `entails`'s."""
from __future__ import annotations

import pytest

from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import eq, ne
from shapehint.solver import alike, answers
from shapehint.solver.contexts import Session
from shapehint.solver.facts import FactStore

from .test_shared_answers import counting

X, Y, Z = Expr.sym("x"), Expr.sym("y"), Expr.sym("z")


@pytest.fixture(autouse=True)
def _empty(monkeypatch):
    monkeypatch.setattr(answers, "_ANSWERS", {})  # the process's exact answers (answers.py) stay out


def _store(job, facts, lo=None):
    st = FactStore(session=job)
    for name, low in (lo or {}).items():
        st.declare(name, low)
    for f, origin in facts:
        st.add(f, origin)
    return counting(st)


def _not3(s):
    return [(ne(s, 3), "not three")]


def _mod(s):  # with `s % 7 == 3`: outside the no-Z3 procedure (test_solver.Z3_ONLY), Z3 decides
    return [(ne(s, 3), "not three"), (eq(s % 7, 3), "mod")]


def test_a_renamed_formula_is_answered_in_the_same_job_with_its_model_renamed_back():
    job = Session()
    first, second = _store(job, _not3(X)), _store(job, _not3(Y))
    assert first.entails(ne(X % 7, 3)) is False and first.z3_calls == 1
    assert second.entails(ne(Y % 7, 3)) is False and second.z3_calls == 0
    y = second._hint["y"]  # the first store's model, by the second store's name
    assert y % 7 == 3 and y != 3 and "x" not in second._hint
    third, fourth = _store(job, _mod(Z)), _store(job, _mod(X))
    assert third.entails(ne(Z % 7, 4)) is True and third.z3_calls == 1
    assert fourth.entails(ne(X % 7, 4)) is True and fourth.z3_calls == 0


def test_another_job_asks_z3_again():
    first, second = _store(Session(), _not3(X)), _store(Session(), _not3(Y))
    assert first.entails(ne(X % 7, 3)) is False
    assert second.entails(ne(Y % 7, 3)) is False and second.z3_calls == 1


def test_other_bounds_or_another_formula_ask_z3_again():
    job = Session()
    first = _store(job, _not3(X))
    assert first.entails(ne(X % 7, 3)) is False
    bounded = _store(job, _not3(Y), lo={"y": 20})
    assert bounded.entails(ne(Y % 7, 3)) is False and bounded.z3_calls == 1
    assert bounded._hint["y"] >= 20
    other = _store(job, _not3(Y) + [(ne(Y, 10), "not ten")])
    assert other.entails(ne(Y % 7, 3)) is False and other.z3_calls == 1


def test_two_symbols_are_not_one():
    """x%7 == y%5 with x, y distinct is not the formula with y renamed to x; x, z is."""
    two, names = alike.key(frozenset({eq(X % 7, Y % 5)}), (ne(X, 3),), {}, {}, (1, 1))
    one, _ = alike.key(frozenset({eq(X % 7, X % 5)}), (ne(X, 3),), {}, {}, (1, 1))
    renamed, renamed_names = alike.key(frozenset({eq(Z % 7, X % 5)}), (ne(Z, 3),), {}, {}, (1, 1))
    assert two != one and two == renamed
    assert renamed_names == [{"x": "z", "y": "x"}[n] for n in names]  # the renaming, position by position
    assert alike.key(frozenset({eq(X % 7, Y % 5)}), (ne(X, 3),), {"y": 2}, {}, (1, 1))[0] != two  # bounds


def test_an_unsat_core_is_the_stores_own_but_the_verdict_alone_is_recalled():
    job = Session()
    first = _store(job, _mod(X))
    assert first.possible(eq(X % 7, 4)) == (False, ["mod"]) and first.z3_calls == 1
    second = _store(job, [(ne(Y, 3), "not three"), (eq(Y % 7, 3), "mod of y")])
    assert second.possible(eq(Y % 7, 4)) == (False, ["mod of y"]) and second.z3_calls == 1
    third = _store(job, _mod(Z))
    assert third.possible(eq(Z % 7, 4), core=False) == (False, []) and third.z3_calls == 0
    fourth, fifth = _store(job, _not3(X)), _store(job, _not3(Y))
    assert fourth.possible(eq(X % 7, 3), core=False) == (True, []) and fourth.z3_calls == 1
    assert fifth.possible(eq(Y % 7, 3)) == (True, []) and fifth.z3_calls == 0  # satisfiable: no core to find


def test_the_memo_stays_bounded(monkeypatch):
    monkeypatch.setattr(alike, "MAX_KEPT", 3)
    kept: dict = {}
    for k in range(10):
        _, where = alike.recall(kept, frozenset(), (eq(X % 7, k),), {}, {}, (1, 1), False)
        alike.keep(where, True, {"x": k + 7})
        assert len(kept) <= 3
    assert alike.recall(kept, frozenset(), (eq(Y % 7, 9),), {}, {}, (1, 1), False)[0] == (True, {"y": 16})
