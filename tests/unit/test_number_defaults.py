"""A number parameter's default is one value of it, not a fact: an operation that fails only on
the default, passed as it came, is no error in the function's own analysis; a caller that omits
it is judged in its own (issue 25, the integer-default case)."""
from shapehint.analysis.api import analyze_source


def _errors(text):
    return [(d.line, d.code) for d in analyze_source(text, "defaults.py").diagnostics if d.severity == "error"]


SHIFT = '''import torch


def shift(x, klen=-1):
    x = x.reshape(x.shape[1], x.shape[0], x.shape[2])
    return torch.index_select(x, 1, torch.arange(klen, dtype=torch.long))


def caller(x):
    return shift(x, x.shape[1])
'''


def test_an_operation_failing_only_on_the_default_is_no_error():
    assert _errors(SHIFT) == []


def test_a_caller_omitting_the_argument_still_fails():
    text = SHIFT.replace("shift(x, x.shape[1])", "shift(x)")
    assert _errors(text) == [(10, "SH107")]


def test_a_literal_the_body_writes_itself_still_fails():
    text = SHIFT.replace("torch.arange(klen, dtype=torch.long)", "torch.arange(-1, dtype=torch.long)")
    assert _errors(text) == [(6, "SH107")]
