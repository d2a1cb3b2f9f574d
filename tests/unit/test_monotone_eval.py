"""solver/monotone.value compiles a formula to Python after COMPILE_AFTER evaluations; the
compiled code must agree with walking the terms on every point: the same floor division and
modulo, `Undecided` for a divisor that is not positive, KeyError for a missing symbol."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from shapehint.shapes.expr import Expr, emax, emin
from shapehint.solver import monotone
from shapehint.solver.monotone import Undecided

NAMES = ("a", "b", "c")
SYM = {n: Expr.sym(n) for n in NAMES}


@st.composite
def exprs(draw, depth=2):
    e = Expr.const(draw(st.integers(-6, 6)))
    for n in draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3)):
        e = e + draw(st.sampled_from([1, 2, -1, 3, -4])) * SYM[n]
    if depth > 0:
        kind = draw(st.sampled_from(["div", "mod", "sdiv", "smod", "max", "min", "mul", "none"]))
        other = draw(exprs(depth=depth - 1))
        if kind == "div":
            e = e // draw(st.integers(1, 5))
        elif kind == "mod":
            e = e % draw(st.integers(2, 5))
        elif kind == "sdiv":  # a symbolic divisor: may be zero or negative at a point
            e = e // other
        elif kind == "smod":
            e = e % other
        elif kind in ("max", "min"):
            e = emax(e, other) if kind == "max" else emin(e, other)
        elif kind == "mul":
            e = e * other
    return e


def _outcome(fn, e, env):
    try:
        return fn(e, env)
    except Undecided:
        return "undecided"


@settings(max_examples=400, deadline=None, derandomize=True)
@given(exprs(), st.fixed_dictionaries({n: st.integers(-7, 40) for n in NAMES}))
def test_compiled_code_agrees_with_the_walk(e, env):
    assert _outcome(lambda x, v: monotone._compiled(x)(v), e, env) == _outcome(monotone._walk, e, env)


def test_a_formula_is_compiled_after_repeated_evaluation():
    e = (SYM["a"] * SYM["b"] + 3) // 2 - emax(SYM["c"], 4)
    fresh = Expr(dict(e.terms))  # its own evaluation state
    for i in range(monotone.COMPILE_AFTER + 3):
        assert monotone.value(fresh, {"a": i, "b": 5, "c": 2}) == (i * 5 + 3) // 2 - 4
    assert callable(fresh._eval)


def test_compiled_code_raises_like_the_walk():
    e = SYM["a"] // (SYM["b"] - 3) + SYM["c"] % (SYM["b"] - 3)
    f = monotone._compiled(e)
    assert f({"a": 7, "b": 5, "c": 3}) == 7 // 2 + 3 % 2
    with pytest.raises(Undecided):
        f({"a": 7, "b": 3, "c": 1})
    with pytest.raises(KeyError):
        f({"a": 7, "b": 5})


def test_equal_formulas_made_apart_share_one_compiled_code():
    """An analysis rebuilds the same formula as distinct objects: the second compiles nothing."""
    make = lambda: (SYM["a"] * 3 + SYM["b"]) // (SYM["c"] - 1) + emin(SYM["a"], 2)
    one, two = make(), make()
    assert one is not two
    f = monotone._compiled(one)
    assert monotone._compiled(two) is f
    assert f({"a": 4, "b": 1, "c": 3}) == 13 // 2 + 2
    with pytest.raises(Undecided):  # the shared code still refuses a divisor that is not positive
        monotone._compiled(two)({"a": 4, "b": 1, "c": 1})


def test_the_shared_codes_stay_bounded(monkeypatch):
    monkeypatch.setattr(monotone, "_CODE", {})
    monkeypatch.setattr(monotone, "MAX_CODE", 5)
    for k in range(1, 30):
        e = SYM["a"] * k + SYM["b"] // (k + 1)
        assert monotone._compiled(e)({"a": 2, "b": 7}) == 2 * k + 7 // (k + 1)
        assert len(monotone._CODE) <= 5
