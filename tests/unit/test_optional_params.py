"""`def forward(self, x, mask=None)`: an optional tensor parameter. The generic analysis walks the
side where it is given (an error there is found) and continues from the side where it is absent."""
from shapehint.analysis.api import analyze_source


def _shapes(src: str) -> dict:
    r = analyze_source(src, "m.py")
    return {(v.span.line, v.name): str(v.shape) for v in r.values if v.shape is not None}, r


SRC = '''import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        y = self.fc(x)
        if mask is not None:
            {given}
        z = y.sum(-1)
        return z
'''


def test_given_side_is_analysed_and_what_follows_keeps_the_absent_shape():
    shapes, r = _shapes(SRC.format(given="y = y * mask.view(B, T, 1)"))
    assert shapes[(14, "y")] == "[B, T, 4]"
    assert shapes[(15, "z")] == "[B, T]"
    assert not [d for d in r.diagnostics if d.severity == "error"]


def test_an_error_on_the_given_side_is_reported():
    _, r = _shapes(SRC.format(given="y = self.fc(y) * mask.float()"))
    errs = [d for d in r.diagnostics if d.severity == "error"]
    assert [d.line for d in errs] == [14]


def test_a_parameter_not_used_as_a_tensor_keeps_its_default():
    src = '''import torch


def f(x, dim=None):
    if dim is None:
        return x.sum()
    return x.sum(dim)
'''
    r = analyze_source(src, "m.py")
    assert not r.diagnostics


def test_early_return_when_absent_continues_on_the_given_side():
    src = '''import torch


def f(x, bias=None):
    B, C = x.shape
    if bias is None:
        return x
    y = x + bias.view(1, C)
    return y
'''
    shapes, _ = _shapes(src)
    assert shapes[(8, "y")] == "[B, C]"


def test_callers_that_omit_it_pass_none():
    src = '''import torch


def f(x, bias=None):
    if bias is not None:
        x = x + bias
    return x


def g(a):
    B, C = a.shape
    out = f(a)
    return out
'''
    shapes, _ = _shapes(src)
    assert shapes[(12, "out")] == "[B, C]"


def test_a_tensor_parameter_without_a_default_is_not_none():
    """x-transformers: `if not exists(x): assert exists(prepend_embeds)` (with
    `exists(v) = v is not None`) on a tensor `x` is never taken, so its assertion is no error;
    nor is the failing view in the arm of `x is None`."""
    src = ("import torch\n\n\ndef exists(v):\n    return v is not None\n\n\n"
           "def f(x, prepend_embeds=None):\n    if not exists(x):\n        assert exists(prepend_embeds)\n"
           "        x = prepend_embeds.new_empty((prepend_embeds.shape[0], 0))\n"
           "    if x is None:\n        y = torch.zeros(2, 3).view(7)\n    return x\n\n\n"
           "def g(t: torch.Tensor):\n    return f(t)\n")
    _, r = _shapes(src)
    assert [d for d in r.diagnostics if d.severity == "error"] == []
    _, r = _shapes(src.replace("if x is None:", "if x is not None:"))
    assert [(d.line, d.code) for d in r.diagnostics if d.severity == "error"] == [(13, "SH103")]
