"""An int constructor parameter whose default is below 1 (`shift_size=0`) may be that default
(analysis/defaults.py `symbol_noting`, environment.bound_below): a symbol is otherwise at least 1,
a size, so `if self.shift_size > 0:` held for every construction and the arm the default takes
was never analysed (the window attention layers' `shifted = hidden_states`: no shape). The join
of such a parameter with another int (`self.shift_size = 0` under an undecided test) may be
below 1 too (comprehensions._joined_int). Shapes are checked against torch on the meta device;
both tests failed before (no record for the default's arm)."""
import torch

from shapehint.analysis.api import analyze_source

from .shape_eval import run_program

PROGRAM = """import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim, shift=0):
        super().__init__()
        self.shift = shift
        self.proj = nn.Linear(dim, 2 * dim)

    def forward(self, x):
        if self.shift > 0:
            y = torch.roll(x, self.shift, 1)
        else:
            y = self.proj(x)
        return y


class Resized(nn.Module):
    def __init__(self, dim, window, shift=2):
        super().__init__()
        self.shift = shift
        self.window = window
        self.proj = nn.Linear(dim, 3 * dim)

    def forward(self, x, res: int):
        if res <= self.window:
            self.shift = 0
        if self.shift > 0:
            y = torch.roll(x, self.shift, 1)
        else:
            y = self.proj(x)
        return y
"""


def _values(function):
    r = analyze_source(PROGRAM, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"]
    return [v for v in r.infer_json()["values"] if v["function"] == function and v["name"] == "y"]


def _by_line(values, text):
    lines = {i + 1 for i, t in enumerate(PROGRAM.splitlines()) if t == text}
    return next((v["shape"] for v in values if v["line"] in lines), None)


def test_the_default_arm_of_a_parameter_defaulting_to_zero_is_analysed():
    got = _by_line(_values("Block.forward"), "            y = self.proj(x)")
    assert got is not None and got[-1] == "2*dim"
    x = torch.empty(2, 5, 8, device="meta")
    want = run_program(PROGRAM)["Block"](8).to("meta")(x).shape
    assert list(want) == [2, 5, eval(got[-1], {}, {"dim": 8})]


def test_a_join_with_zero_leaves_the_test_undecided():
    values = _values("Resized.forward")
    got = _by_line(values, "            y = self.proj(x)")
    assert got is not None and got[-1] == "3*dim"
    assert _by_line(values, "            y = torch.roll(x, self.shift, 1)") is not None
    x = torch.empty(2, 5, 8, device="meta")
    m = run_program(PROGRAM)["Resized"](8, 4).to("meta")
    assert list(m(x, 4).shape) == [2, 5, eval(got[-1], {}, {"dim": 8})]  # res <= window: shift 0
