"""Counts and lists the analysis loses the value of, and what is still known of them (issue 27):
`torch.linspace(a, b, n)` is 1-D whatever `n` is (PyTorch takes only an int); `t.tolist()` nests
one list per axis around floats for a floating tensor, so an item read from it is a number, not
a value that might be a tensor; a LayerNorm's output ends with the
sizes it normalizes over (PyTorch requires the input to), written so where the input's were
unknown. The program is our own; the shapes and the nesting are checked against torch."""
import types

import pytest

from shapehint.ops.concrete import apply
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import FloatV, ListV, TensorV, UnknownV

from .program_runs import infer, run
from .shape_eval import evaluated

PROGRAM = '''import torch
import torch.nn as nn


class M(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.rates = torch.linspace(0, cfg.drop, sum(cfg.depths)).tolist()
        self.index = torch.arange(sum(cfg.depths)).tolist()
        self.count = sum(cfg.depths)
        self.norm = nn.LayerNorm(cfg.width)

    def forward(self, x):
        ramp = torch.linspace(0, 1, self.count)
        scaled = x * (1 - self.rates[0])
        wide = x.unsqueeze(-1) * ramp
        y = self.norm(wide)
        z = torch.zeros(self.index[-1], 3)
        return y
'''


def test_lost_counts_against_torch(tmp_path):
    got = {v["name"]: v["shape"] for v in infer(tmp_path, PROGRAM)["values"] if v["function"] == "M.forward"}
    assert got["ramp"] == ["?"]
    assert got["scaled"] == ["*x"]
    assert got["wide"] == ["*x", "?"]
    assert got["y"] == ["*x", "cfg.width"]
    assert got["z"] == ["?", 3]
    torch = pytest.importorskip("torch")
    cfg = types.SimpleNamespace(depths=[2, 3], drop=0.1, width=5)
    m = run(PROGRAM)["M"](cfg)
    x = torch.randn(2, 4)
    ramp = torch.linspace(0, 1, m.count)
    assert ramp.dim() == 1
    assert (x * (1 - m.rates[0])).shape == x.shape
    y = m(x)
    assert list(y.shape) == list(x.shape) + evaluated(["cfg.width"], {"cfg": cfg})
    assert list(torch.zeros(m.index[-1], 3).shape)[1:] == [3]


def _tolist(x):
    return apply("Tensor.tolist", x)


def _depth(v):
    n = 0
    while isinstance(v, ListV):
        v, n = v.elem, n + 1
    return n, v


@pytest.mark.parametrize("dims", [(3,), (2, 3), (), (2, 2, 2)])
def test_tolist_nests_one_list_per_axis(dims):
    torch = pytest.importorskip("torch")
    n, item = _depth(_tolist(TensorV(Shape.of(dims), "float32")))
    real = torch.zeros(dims).tolist()
    depth = 0
    while isinstance(real, list):
        real, depth = real[0], depth + 1
    assert n == depth == len(dims)
    assert isinstance(item, FloatV) and item.value is None and isinstance(real, float)


def test_tolist_of_what_is_not_known_stays_unknown():
    assert isinstance(_tolist(TensorV(Shape((), "x*", ()), "float32")), UnknownV)  # rank unknown
    assert isinstance(_tolist(TensorV(Shape.of((3,)), None)), UnknownV)  # dtype unknown
    # ints: the items of a list of unknown length are one joined value, and one symbol for all
    # of them would prove `ids[0] == ids[1]`
    assert isinstance(_tolist(TensorV(Shape.of((3,)), "int64")), UnknownV)
