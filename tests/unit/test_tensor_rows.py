"""A comprehension over a tensor of unknown length binds its target to a row, a tensor of the
other axes (analysis/comprehensions.py, `_tensor_row`; before, an unknown value, so
`[t.item() for t in torch.linspace(0, rate, n)]` held values that might be tensors), and
`torch.linspace` with a step count the analysis does not hold is still one axis of some length
(ops/families/creation.py; before, no tensor at all). A stochastic-depth rate read from such a
list (`DropPath(dpr[i]) if dpr[i] > 0 else nn.Identity()`, `keep + torch.rand(...)`) kept a
residual block's output, and everything after it, of unknown rank. Every shape claimed is
evaluated against torch's."""
import pytest

torch = pytest.importorskip("torch")

from .test_windowed_attention import _evaluates, _inferred, _run  # noqa: E402  (torch first)

ROWS = """\
import torch


def rows(x, n: int):
    b, c = x.shape
    lin = torch.linspace(0, 0.1, n)
    first = [t for t in lin][0]
    scaled = x * first
    rates = [t.item() for t in lin]
    kept = x.div(1 - rates[0])
    noise = (1 - rates[1]) + torch.rand(b, 1)
    return first, scaled, kept, noise
"""


def test_a_comprehension_over_a_tensor_binds_its_rows():
    got = _inferred(ROWS, "rows")
    x = torch.randn(3, 5)
    outs = _run(ROWS, "rows", x, 4)
    for name, t in zip(("first", "scaled", "kept", "noise"), outs):
        assert _evaluates(got[name]["shape"], list(t.shape), {"b": 3, "c": 5, "n": 4})


DEPTH = """\
import torch
from torch import nn


def drop_path(x, p: float = 0.0, training: bool = False):
    if p == 0.0 or not training:
        return x
    keep = 1 - p
    mask = keep + torch.rand((x.shape[0],) + (1,) * (x.ndim - 1), dtype=x.dtype)
    mask.floor_()
    return x.div(keep) * mask


class DropPath(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        return drop_path(x, self.p, self.training)


class Block(nn.Module):
    def __init__(self, dim, rate):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.drop = DropPath(rate) if rate > 0.0 else nn.Identity()

    def forward(self, x):
        return x + self.drop(self.norm(x))


class Stage(nn.Module):
    def __init__(self, dim, depth, rates):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, rates[i]) for i in range(depth)])

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return x


class Net(nn.Module):
    def __init__(self, dim, depths, rate):
        super().__init__()
        dpr = [t.item() for t in torch.linspace(0, rate, sum(depths))]
        self.stages = nn.ModuleList([Stage(dim, depths[i], dpr[sum(depths[:i]):sum(depths[:i + 1])])
                                     for i in range(len(depths))])

    def forward(self, x: torch.Tensor):
        b, n, c = x.shape
        for stage in self.stages:
            x = stage(x)
        out = x
        return out


def f(x, train):
    net = Net(8, [2, 3], 0.2)
    net.train(train)
    return net(x)
"""


@pytest.mark.parametrize("train", [False, True])
def test_a_stochastic_depth_rate_from_a_linspace_keeps_the_blocks_shapes(train):
    got = _inferred(DEPTH, "Net.forward")
    x = torch.randn(2, 5, 8)
    out = _run(DEPTH, "f", x, train)
    assert _evaluates(got["out"]["shape"], list(out.shape), {"b": 2, "n": 5, "c": 8})
    # a stage analysed on its own, its rates any of the list's: its blocks' output (before, `?`)
    stage = _inferred(DEPTH, "Stage.forward")["x"]["shape"]
    assert _evaluates(stage, list(out.shape), {"x": x})
