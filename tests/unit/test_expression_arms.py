"""Conditional expressions and `and`/`or` are branches too: an arm of `a if c else b`, and an
operand Python reaches only past an undecided one, runs as an undecided arm (evaluator.e_IfExp,
compare._operands): what it requires holds only where it runs. An operand past a decided one
that ends the expression never runs at all."""
from shapehint.analysis.api import analyze_source

HEAD = '''import torch
from jaxtyping import Float
from torch import Tensor


'''


def _codes(src: str) -> list:
    return [(d.line, d.code) for d in analyze_source(HEAD + src, "m.py").diagnostics]


def test_an_arm_of_a_conditional_expression_requires_only_where_it_runs():
    assert _codes('''def f(x: Float[Tensor, "N C"]):
    y = x[5] if x.shape[0] > 5 else x[0]
    assert x.shape[0] == 2
    return y
''') == []  # was SH108: x[5] made N > 5 a fact for every input


def test_a_conditional_expression_whose_arms_both_fail_still_fails():
    assert _codes('''def f(x: Float[Tensor, "N 4"]):
    y = x.view(3) if x.shape[0] > 5 else x.view(5)
    return y
''') != []


def test_an_and_operand_requires_only_where_the_earlier_ones_hold():
    assert _codes('''def f(x: Float[Tensor, "N C"]):
    ok = x.shape[0] > 5 and x[5].sum() > 0
    assert x.shape[0] == 2
    return ok
''') == []


def test_an_or_operand_requires_only_where_the_earlier_ones_fail():
    assert _codes('''def f(x: Float[Tensor, "N C"]):
    ok = x.shape[0] <= 5 or x[5].sum() > 0
    assert x.shape[0] == 2
    return ok
''') == []


def test_an_operand_past_a_decided_end_never_runs():
    assert _codes('''def f(x: Float[Tensor, "N 4"]):
    ok = x.shape[1] == 4 or x.view(7).sum() > 0
    return ok
''') == []  # x.view(7) would fail for every N; Python never evaluates it


def test_a_comprehension_element_requires_only_where_its_filter_holds():
    assert _codes('''def f(x: Float[Tensor, "N C"], y: Float[Tensor, "M C"]):
    rows = [t[5] for t in [x, y] if t.shape[0] > 5]
    assert x.shape[0] == 2
    return rows
''') == []  # was SH108: t[5] made N > 5 a fact for every input
