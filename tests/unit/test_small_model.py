"""Witnesses found without the solver (questions/common.small_model): small values, equations
and one-symbol bounds respected, and None (the solver's turn) when the search finds nothing."""
from shapehint.questions.common import small_model
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import eq, gt, lt, ne

a, b, s = Expr.sym("a"), Expr.sym("b"), Expr.sym("s")


def _ok(preds, env):
    return all(p.evaluate(env) for p in preds)


def test_smallest_values_when_nothing_constrains():
    assert small_model([ne(a, 3)], ["a", "b"], {}, {}) == {"a": 1, "b": 1}


def test_equations_are_solved_through_each_other():
    preds = [eq(a, b * 2), eq(b, 5)]
    m = small_model(preds, ["a", "b"], {}, {})
    assert m == {"a": 10, "b": 5} and _ok(preds, m)


def test_a_large_lower_bound_is_met_directly():
    preds = [lt(Expr.const(2050), s + 2), lt(s, Expr.const(4000))]
    assert small_model(preds, ["s"], {}, {}) == {"s": 2049}


def test_values_are_lowered_one_at_a_time():
    preds = [gt(b, Expr.const(2)), lt(a, b)]
    m = small_model(preds, ["a", "b"], {}, {})
    assert _ok(preds, m) and m["a"] == 1


def test_nothing_found_leaves_it_to_the_solver():
    assert small_model([eq(s * s, Expr.const(49))], ["s"], {}, {}) is None  # 7 is not a probe
    assert small_model([eq(a, 3), eq(a, 4)], ["a"], {}, {}) is None
