"""A Sequential of an unknown number of blocks (layers._repeated): a size of a block's output that
the block's own requirements prove equal to its input's is the input's.

`Block(dim)` asks `x.shape[1] == dim` (its depthwise convolution) and gives `dim` channels; the
stack of no block gives `x.shape[1]`. Their join was unknown, though on every path that does not
raise the channels are `x.shape[1]`. The blocks a loop built are a choice of instances, each
called as an undecided arm whose facts are dropped after it (calls._call_each): the sizes are
matched within the arm (`_applied`). A block that changes a size no requirement ties to the
input's (`Doubling`) still joins to unknown. Checked against torch (meta tensors)."""
import pytest

from .test_defaults_context_floats_forwarding import _at, _values

PROGRAM = '''import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.pw = nn.Linear(dim, dim)

    def forward(self, x):
        s = x
        x = self.dw(x)
        x = self.pw(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        return x + s


class Doubling(nn.Module):
    def forward(self, x):
        return x.repeat(1, 2, 1, 1)


class Stage(nn.Module):
    def __init__(self, dim: int, depth: int):
        super().__init__()
        blocks = []
        for i in range(depth):
            blocks.append(Block(dim))
        self.blocks = nn.Sequential(*blocks)
        grown = []
        for i in range(depth):
            grown.append(Doubling())
        self.grown = nn.Sequential(*grown)

    def forward(self, x):
        y = self.blocks(x)
        z = self.grown(x)
        return y, z
'''
FN, Y, Z = "Stage.forward", 36, 37


def _torch(depth):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "keptsizes.py", "exec"), ns)
    x = torch.empty(2, 8, 5, 6, device="meta")
    return x, ns["Stage"](8, depth).to("meta")(x)


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_the_stack_keeps_the_input_channels(depth):
    values = _values(PROGRAM)
    x, (y, _) = _torch(depth)
    shape = _at(values, FN, Y, "y")["shape"]
    assert shape == ["x.shape[0]", "x.shape[1]", "x.shape[2]", "x.shape[3]"]
    assert [eval(d, {"x": x}) for d in shape] == list(y.shape)


def test_a_size_nothing_ties_to_the_input_stays_unknown():
    values = _values(PROGRAM)
    assert [_torch(d)[1][1].shape[1] for d in (0, 1, 2)] == [8, 16, 32]
    assert _at(values, FN, Z, "z")["shape"][1] == "?"
