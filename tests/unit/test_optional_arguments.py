"""A condition on a None-defaulted argument is judged with the argument given and omitted; an
error needs both to fail (issue 25, item 2)."""
from shapehint.analysis.api import analyze_source


def _errors(text):
    return [(d.line, d.code) for d in analyze_source(text, "opt.py").diagnostics if d.severity == "error"]


PASSED_ON = '''import torch
import torch.nn as nn


def shift(x, pos=None):
    assert pos is not None
    return x + pos


class Block(nn.Module):
    def forward(self, x, pos=None):
        return shift(x, pos)
'''


def test_a_callee_asserting_an_argument_the_caller_only_passes_on_is_no_error():
    assert _errors(PASSED_ON) == []


def test_the_callee_still_fails_when_every_caller_gives_none_itself():
    # the None is written at the call, not the analysed function's omitted default: it fails
    text = PASSED_ON.replace("return shift(x, pos)", "return shift(x, None)")
    assert _errors(text) == [(6, "SH108")]


def test_a_default_the_caller_fixes_itself_is_still_judged():
    # `pos` is the caller's own local None, not its default: every call fails
    text = PASSED_ON.replace("        return shift(x, pos)", "        pos = None\n        return shift(x, pos)")
    assert _errors(text) == [(6, "SH108")]


ONLY_PASSED = '''import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1)

    def score(self, x, mask, weights):
        return self.fc(x * mask.float()) * weights.sum()

    def generate(self, x, mask=None, weights=None):
        assert mask is not None or weights is not None
        for i in range(3):
            assert mask is not None
        return self.score(x, mask, weights)
'''


def test_the_analysed_function_s_own_omitted_arguments_may_be_given():
    # `mask` and `weights` are only passed on here (tensors in `score`): the analysis takes them
    # as omitted Nones, which callers that give them do not meet
    assert _errors(ONLY_PASSED) == []
