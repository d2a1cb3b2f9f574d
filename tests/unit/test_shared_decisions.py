"""solver/answers.recall_decided: what the bounds (bounds.decide_without_z3: propagation, the
uniform points, the witness search) decide for one fact store serves every store of the process
that asks the same formula under the same bounds; an undecided formula is not searched again,
but each asker still tries its own last model (`hint`) on it."""
from __future__ import annotations

import pytest

from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import eq, ge, gt, lt
from shapehint.solver import answers, bounds

H, W, L = Expr.sym("H"), Expr.sym("W"), Expr.sym("L")


@pytest.fixture(autouse=True)
def _empty(monkeypatch):
    monkeypatch.setattr(answers, "_DECIDED", {})
    calls = []
    real = bounds._decide_at_bounds
    monkeypatch.setattr(bounds, "_decide_at_bounds", lambda *a: calls.append(a[0]) or real(*a))
    return calls


# more predicates than bounds.QUICK_FIRST, so the uniform points are not tried first
SAT = [ge(H, 3), ge(W, 3), eq(L, H * W), gt(L, 20), lt(H, 50)]
UNSAT = [ge(H, 5), lt(H, 4), eq(L, H * W), ge(W, 1), ge(L, 1)]


def test_a_definite_verdict_is_recalled_by_the_next_store(_empty):
    assert bounds.decide_without_z3(SAT, {}, {}, {}, {}) is True
    assert bounds.decide_without_z3(UNSAT, {}, {}, {}, {}) is False
    assert len(_empty) == 2
    assert bounds.decide_without_z3(list(reversed(SAT)), {}, {}, {}, {}) is True  # the same formula
    assert bounds.decide_without_z3(UNSAT, {}, {}, {}, {}) is False
    assert len(_empty) == 2


def test_other_bounds_decide_again(_empty):
    assert bounds.decide_without_z3(SAT, {}, {}, {}, {}) is True
    assert bounds.decide_without_z3(SAT, {}, {"H": 4}, {}, {}) is True  # H = 3 or 4
    assert bounds.decide_without_z3(SAT, {}, {"H": 3, "W": 6}, {}, {}) is False  # 3 * 6 < 21
    assert len(_empty) == 3


def test_an_undecided_formula_still_takes_the_askers_own_model(monkeypatch, _empty):
    monkeypatch.setattr(bounds, "find_model", lambda *a: None)
    monkeypatch.setattr(bounds, "solve", lambda *a, **k: (None, None))
    monkeypatch.setattr(bounds, "quick_sat", lambda *a: False)
    assert bounds.decide_without_z3(SAT, {}, {}, {}, {}) is None
    hint = {"H": 5, "W": 5}  # L follows from its equation: 25 > 20
    assert bounds.decide_without_z3(SAT, {}, {}, {}, hint) is True
    assert hint["L"] == 25
    assert bounds.decide_without_z3(SAT, {}, {}, {}, {}) is None  # (that model was this asker's)
    assert len(_empty) == 1


def test_a_recalled_verdict_hands_on_the_witness_as_the_next_guess(monkeypatch, _empty):
    monkeypatch.setattr(bounds, "solve", lambda *a, **k: (None, None))
    monkeypatch.setattr(bounds, "quick_sat", lambda *a: False)
    first, second = {}, {}
    assert bounds.decide_without_z3(SAT, {}, {}, {}, first) is True
    assert bounds.decide_without_z3(SAT, {}, {}, {}, second) is True
    assert second == first and second["L"] == second["H"] * second["W"] > 20
    assert len(_empty) == 1
