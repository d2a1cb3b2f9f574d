"""solver/answers.py: a model Z3's optimizer found for one fact store (`FactStore.model`) serves
every store of the process that sends Z3 the same query — the same facts and extra predicates,
names, objectives, declared symbols and bounds — without asking Z3 again (the rank search's
re-analyses ask the same lexicographic minimum each time); anything else asks Z3."""
from __future__ import annotations

import pytest

from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import eq, ge, ne
from shapehint.solver import answers
from shapehint.solver.facts import FactStore

X, Y = Expr.sym("x"), Expr.sym("y")
# products and modulo of two symbols: outside the no-Z3 procedure, so the optimizer answers
FACTS = (eq(X % Y, 3), ge(X * Y, 40))


@pytest.fixture(autouse=True)
def _empty(monkeypatch):
    monkeypatch.setattr(answers, "_MODELS", {})


@pytest.fixture
def optimizations(monkeypatch):
    import z3
    calls = []
    real = z3.Optimize.check

    def counted(self, *a):
        calls.append(self)
        return real(self, *a)
    monkeypatch.setattr(z3.Optimize, "check", counted)
    return calls


def _store(facts=FACTS, lo=None):
    st = FactStore()
    if lo is not None:
        st.declare("x", lo)
    for f in facts:
        st.add(f)
    return st


def test_a_second_store_takes_the_first_ones_model(optimizations):
    first = _store().model(names=["x", "y"], minimize=["x", "y"])
    assert len(optimizations) == 1
    assert first["x"] % first["y"] == 3 and first["x"] * first["y"] >= 40
    assert (first["x"], first["y"]) == (3, 14)  # the lexicographic minimum: x = 3, then 3 * y >= 40
    first["x"] = 0  # (the caller's copy: the memo keeps its own)
    second = _store()
    again = second.model(names=["x", "y"], minimize=["x", "y"])
    assert len(optimizations) == 1 and second.queries == 1
    assert again == {"x": 3, "y": 14}


def test_no_model_is_remembered_too(optimizations):
    facts = FACTS + (eq(Y, 2),)  # x % 2 == 3: none
    assert _store(facts).model(names=["x"], minimize=["x"]) is None
    assert _store(facts).model(names=["x"], minimize=["x"]) is None
    assert len(optimizations) == 1


def test_another_query_asks_z3_again(optimizations):
    _store().model(names=["x", "y"], minimize=["x", "y"])
    other_order = _store().model(names=["x", "y"], minimize=["y", "x"])  # another objective
    assert len(optimizations) == 2 and other_order["y"] == 4
    bounded = _store(lo=20).model(names=["x", "y"], minimize=["x", "y"])  # another bound
    assert len(optimizations) == 3 and bounded["x"] >= 20
    extra = _store().model([ne(X, 3)], names=["x", "y"], minimize=["x", "y"])  # another predicate
    assert len(optimizations) == 4 and extra["x"] > 3


def test_the_memo_stays_bounded(monkeypatch):
    monkeypatch.setattr(answers, "MAX_ANSWERS", 3)
    for k in range(10):
        answers.keep_model(answers.model_key([], [eq(X, k)], [], [], {}, {}, {}, 1), {"x": k})
        assert len(answers._MODELS) <= 3
