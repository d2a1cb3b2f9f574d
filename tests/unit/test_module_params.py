"""A layer's `weight` and `bias` attributes are its parameters (or None), never the `bias=True`
it was built with; `torch.nn.init` keeps what it fills (its rules: tests/ops/test_init.py)."""
from shapehint.analysis.api import analyze_source

SRC = '''import torch
import torch.nn as nn
import torch.nn.functional as F


def f(x: torch.Tensor):
    assert x.shape == (2, 4)
    fc = nn.Linear(4, 8)
    bare = nn.Linear(4, 8, bias=False)
    b = nn.init.zeros_(fc.bias)
    y = F.linear(x, fc.weight, fc.bias)
    if bare.bias is None:
        z = y
    else:
        z = y.view(3)
    e = nn.init.eye_(fc.bias)
    return z
'''


def test_bias_is_the_parameter():
    r = analyze_source(SRC, "p.py")
    shapes = {v["name"]: v["shape"] for v in r.infer_json()["values"]}
    assert shapes["b"] == [8] and shapes["y"] == [2, 8] and shapes["z"] == [2, 8]
    # `bare.bias is None` is decided, so `y.view(3)` never runs; `eye_` needs a matrix
    assert [(d.line, d.code) for d in r.diagnostics if d.severity == "error"] == [(16, "SH102")]
