"""`try` with a handler that gets on (executor.s_Try): the body is an undecided arm — what it
requires holds only where it did not raise, and a shape error a handler catches is no error.
A handler that re-raises leaves the body as the only way on, with its facts."""
from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.migrate import answer_migration

HEAD = '''import torch
from jaxtyping import Float
from torch import Tensor


'''


def _codes(src: str) -> list:
    return [(d.line, d.code) for d in analyze_source(HEAD + src, "m.py").diagnostics]


def test_a_caught_shape_error_is_no_error():
    assert _codes('''def f(x: Float[Tensor, "N 4"]):
    try:
        y = x.view(7)
    except RuntimeError:
        y = x
    return y
''') == []  # was SH103: view(7) of 4*N elements


def test_a_caught_shape_error_does_not_bind_the_migration():
    src = HEAD + '''def f(x):
    try:
        y = x.view(7, 3)
    except Exception:
        y = x
    return y.sum()
'''
    [a] = answer_migration(analyze_session(src, "m.py", records=False), only="f")
    # any x gets on (the handler takes the others): was [21], the view's 7 * 3 elements
    assert a["status"] == "static" and a["params"][0]["shape"] != [21]


def test_what_the_body_requires_holds_only_where_it_did_not_raise():
    assert _codes('''def f(x: Float[Tensor, "N C"]):
    try:
        y = x[5]
    except IndexError:
        y = x[0]
    assert x.shape[0] == 2
    return y
''') == []  # was SH108: x[5] made N > 5 a fact for every input


def test_a_handler_that_reraises_keeps_the_error_and_the_facts():
    assert _codes('''def f(x: Float[Tensor, "N 4"]):
    try:
        y = x.view(7)
    except RuntimeError as e:
        raise ValueError("bad input") from e
    return y


def g(x: Float[Tensor, "N C"]):
    try:
        y = x[5]
    except IndexError:
        raise
    assert x.shape[0] == 2
    return y
''') == [(8, "SH103"), (19, "SH108")]


def test_a_body_that_always_fails_leaves_the_handler_as_the_way_on():
    assert _codes('''def f(x: Float[Tensor, "N 4"]):
    try:
        y = x.view(7)
    except RuntimeError:
        y = x.view(-1)
    assert y.dim() == 2
    return y
''') == [(11, "SH108")]  # y is the handler's [4*N]: rank 1
