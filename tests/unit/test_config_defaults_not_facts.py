"""A configuration class's string and float defaults are not facts (analysis/defaults.py): the
model is built with whatever configuration its caller makes, so a width computed from a ratio
(`int(config.hidden * config.ratio)`) and an arm a mode string picks are not decided by the
configuration class's defaults in the class's own analysis. Before, the float default made the
layer's width `4*config.hidden`, wrong for `Cfg(ratio=2.0)`. (The defaults construction
context decides them, bound only to builds that keep the defaults: flag_defaults, config_defaults.)"""
import torch

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
import torch.nn as nn


class Cfg:
    def __init__(self, hidden=8, mode="flat", ratio=4.0):
        self.hidden = hidden
        self.mode = mode
        self.ratio = ratio


class Net(nn.Module):
    def __init__(self, config: Cfg):
        super().__init__()
        self.mode = config.mode
        self.fc = nn.Linear(config.hidden, int(config.hidden * config.ratio))

    def forward(self, x):
        y = self.fc(x)
        if self.mode == "flat":
            y = y.flatten(1)
        return y
'''


def _run(**cfg):
    scope: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), scope)
    return scope["Net"](scope["Cfg"](**cfg))(torch.zeros(2, 3, 8))


def _own_shapes():
    r = analyze_source(PROGRAM, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"]
    return {(v.span.line, v.span.col, v.name): str(v.shape) for v in r.values if v.function == "Net.forward"}


def test_a_float_default_is_no_fact():
    assert _run(mode="keep").shape == (2, 3, 32) and _run(mode="keep", ratio=2.0).shape == (2, 3, 16)
    width = _own_shapes()[(19, 8, "y")]  # the width follows the ratio
    assert "4*" not in width and "config.hidden]" not in width, width


def test_a_string_default_decides_no_arm():
    assert _run().shape == (2, 96) and _run(mode="keep").shape == (2, 3, 32)
    flat = _own_shapes().get((21, 12, "y"))
    assert flat is None or "*" in flat or "?" in flat, flat  # never the flattened shape taken for every build
