"""A `nn.Sequential` subclass without a `forward` that registers all its modules at one
`add_module` of names not known, in a loop of unknown count (a stage of `depth` blocks, the first
changing the width and the resolution): calling it is that layer stacked some number of times,
zero included (layers._repeated, loop_counts.stacked_layer), not unknown. Checked against torch
running the same program on meta tensors at several depths."""
import pytest
import torch

from .shape_eval import evaluated, inferred, run_program

PROGRAM = """from typing import Callable, List

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride=stride, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


class Stage(nn.Sequential):
    def __init__(self, cin: int, cout: int, stride: int, depth: int):
        super().__init__()
        for i in range(depth):
            self.add_module(f"block{i}", Block(cin if i == 0 else cout, cout, stride if i == 0 else 1))


class Net(nn.Module):
    def __init__(self, depth: int, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 1)
        self.stage = Stage(8, 16, 2, depth)

    def forward(self, x):
        h = self.stem(x)
        y = self.stage(h)
        return y


class Head(nn.Module):
    def __init__(self, depth: int, num_classes: int = 10):
        super().__init__()
        self.stage = Stage(16, 16, 1, depth)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        y = self.stage(x)
        z = y.mean((2, 3))
        return self.fc(z)


class Carried(nn.Sequential):
    def __init__(self, cin: int, cout: int, depth: int):
        super().__init__()
        self.cur = cin
        for i in range(depth):
            self.add_module(f"b{i}", Block(self.cur, cout, 1))
            self.cur = cout


class Flagged(nn.Sequential):
    def __init__(self, cin: int, cout: int, depth: int):
        super().__init__()
        first = True
        for i in range(depth):
            self.add_module(f"b{i}", Block(cin if first else cout, cout, 1))
            first = False


class Stages(nn.Module):
    def __init__(self, depths: List[int]):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 1)
        stages = []
        for depth in depths:
            stages.append(Flagged(8, 8, depth))
        self.stages = nn.Sequential(*stages)
        self.flagged = Flagged(8, 16, depths[0])
        self.carried = Carried(8, 16, depths[0])

    def forward(self, x):
        h = self.stem(x)
        y = self.stages(h)
        z = self.flagged(h)
        c = self.carried(h)
        return y


class Named(nn.Sequential):
    def __init__(self, prefix: str, cin: int, cout: int):
        super().__init__()
        for i in range(3):
            self.add_module(prefix + str(i), Block(cin if i == 0 else cout, cout, 1))


class Unrolled(nn.Module):
    def __init__(self, prefix: str):
        super().__init__()
        self.stage = Named(prefix, 8, 16)

    def forward(self, x):
        y = self.stage(x)
        return y


class Opaque(nn.Sequential):
    def __init__(self, depth: int, block: Callable[..., nn.Module]):
        super().__init__()
        for i in range(depth):
            self.add_module(f"block{i}", block(i))


class Other(nn.Module):
    def __init__(self, depth: int, block: Callable[..., nn.Module]):
        super().__init__()
        self.stage = Opaque(depth, block)

    def forward(self, x):
        y = self.stage(x)
        return y
"""


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_a_stage_of_unknown_depth_is_its_block_stacked(depth):
    ns = run_program(PROGRAM)
    x = torch.empty(2, 3, 16, 16, device="meta")
    h = ns["Net"](depth).to("meta").stem(x)
    y = ns["Net"](depth).to("meta")(x)
    got = inferred(PROGRAM, "Net.forward")
    env = {"x": x}
    assert evaluated(got["h"], env) == list(h.shape)
    # the batch is kept; the width and the sides depend on the depth the class does not know
    assert got["y"] == ["x.shape[0]", "?", "?", "?"]
    assert evaluated(got["y"], env)[0] == y.shape[0] and y.dim() == 4


@pytest.mark.parametrize("depth", [0, 2])
def test_a_stage_that_keeps_the_width_keeps_it(depth):
    ns = run_program(PROGRAM)
    x = torch.empty(2, 16, 8, 8, device="meta")
    m = ns["Head"](depth).to("meta")
    y, out = m.stage(x), m(x)
    got = inferred(PROGRAM, "Head.forward")
    env = {"x": x, "num_classes": 10}
    assert got["y"] == ["x.shape[0]", 16, "x.shape[2]", "x.shape[3]"]
    assert evaluated(got["y"], env) == list(y.shape)
    assert evaluated(got["z"], env) == list(y.mean((2, 3)).shape) and list(out.shape) == [2, 10]


def test_a_stage_of_blocks_the_analysis_cannot_see_stays_unknown():
    assert "y" not in inferred(PROGRAM, "Other.forward")


def test_an_unrolled_loop_s_last_block_is_not_every_block():
    # (three passes of a known count each wrote the site: the last block, 16 -> 16, is not the
    # first, 8 -> 16; no error on an input of 8 channels, and no claim)
    ns = run_program(PROGRAM)
    x = torch.empty(2, 8, 4, 4, device="meta")
    assert list(ns["Unrolled"]("b").to("meta")(x).shape) == [2, 16, 4, 4]
    from shapehint.analysis.api import analyze_source
    r = analyze_source(PROGRAM, "m.py").infer_json()
    assert not [d for d in r["diagnostics"] if d.get("severity") == "error"]
    assert "y" not in inferred(PROGRAM, "Unrolled.forward")


@pytest.mark.parametrize("depths", [[0], [2, 1]])
def test_a_flag_a_pass_carries_and_a_count_not_known(depths):
    # (a local flag the passes' join covers; a depth read from a list of unknown contents: the
    # loop's count is not known, its passes still joined)
    ns = run_program(PROGRAM)
    x = torch.empty(2, 3, 4, 4, device="meta")
    m = ns["Stages"](depths).to("meta")
    h = m.stem(x)
    y, z, c = m.stages(h), m.flagged(h), m.carried(h)
    got = inferred(PROGRAM, "Stages.forward")
    assert got["y"] == ["x.shape[0]", 8, "x.shape[2]", "x.shape[3]"]
    assert got["z"] == ["x.shape[0]", "?", "x.shape[2]", "x.shape[3]"]
    env = {"x": x}
    assert evaluated(got["y"], env) == list(y.shape)
    assert [d for d in evaluated(got["z"], env) if d is not None] == [2, 4, 4] and z.dim() == 4
    # a width carried in an attribute (`self.cur = cout`) is not joined across passes: the block
    # built last (16 -> 16) is not the first (8 -> 16), so no stack is claimed
    assert "c" not in got and list(c.shape)[1] == (16 if depths[0] else 8)
