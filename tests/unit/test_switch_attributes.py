"""A switch the instance is constructed with (`self.use_ckpt = False` in `__init__`) that only a
setter `forward` never reaches turns, to the value its caller passes, keeps its constructed value
in the class's own analysis (analysis/reconfiguration.py, `_switch`): the instance as constructed
takes the arm it chooses, as its layers keep theirs past a `reset_classifier()`. Before, the
switch was forgotten, both arms ran, and an arm the analysis cannot follow (a checkpointing
helper over `children()`) made every shape after the `if` unknown. A value a method sets to a
constant, or one a method `forward` reaches assigns, is still forgotten. The programs are our
own; the shapes claimed are checked against torch on the meta device."""

import torch

from shapehint.analysis.api import analyze_source

SWITCH = """\
import torch
from torch import nn


def run_each(fns, x):
    for f in fns.children():
        x = f(x)
    return x


class Switched(nn.Module):
    def __init__(self, dim: int = 32):
        super().__init__()
        self.use_ckpt = False
        self.blocks = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.norm = nn.LayerNorm(dim)

    def set_ckpt(self, enable: bool = True):
        self.use_ckpt = enable

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.use_ckpt:
            x = run_each(self.blocks, x)
        else:
            x = self.blocks(x)
        y = self.norm(x)
        return y


class Latched(nn.Module):
    def __init__(self, dim: int = 32):
        super().__init__()
        self.use_ckpt = False
        self.blocks = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.norm = nn.LayerNorm(dim)

    def latch(self):
        self.use_ckpt = True

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.use_ckpt:
            x = run_each(self.blocks, x)
        else:
            x = self.blocks(x)
        y = self.norm(x)
        return y


class Toggling(nn.Module):
    def __init__(self, dim: int = 32):
        super().__init__()
        self.use_ckpt = False
        self.blocks = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.norm = nn.LayerNorm(dim)

    def set_ckpt(self, enable: bool = True):
        self.use_ckpt = enable

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.use_ckpt:
            x = run_each(self.blocks, x)
        else:
            x = self.blocks(x)
        y = self.norm(x)
        self.set_ckpt(not self.use_ckpt)
        return y
"""


def _y(cls: str):
    r = analyze_source(SWITCH, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    ys = [v for v in r.infer_json()["values"] if v["function"] == f"{cls}.forward" and v["name"] == "y"]
    assert len(ys) <= 1, ys
    return ys[0]["shape"] if ys else None  # (no record: no shape)


def _observed(cls: str, dim: int = 32):
    ns = {}
    exec(compile(SWITCH, "m.py", "exec"), ns)
    with torch.device("meta"):
        m = ns[cls](dim=dim)
        return list(m(torch.zeros(2, 5, dim)).shape)


def test_a_switch_only_a_setter_turns_keeps_its_constructed_value():
    assert _y("Switched") == ["*x", "dim"]
    assert _observed("Switched", dim=32) == [2, 5, 32]


def test_a_value_a_method_sets_to_a_constant_is_still_forgotten():
    # `latch()` is no setter whose caller picks the value: nothing says the instance is unlatched
    assert _y("Latched") is None
    assert _observed("Latched") == [2, 5, 32]


def test_a_switch_forward_turns_is_still_forgotten():
    # forward turns it through `set_ckpt`: the next call takes the other arm
    assert _y("Toggling") is None
    assert _observed("Toggling") == [2, 5, 32]
