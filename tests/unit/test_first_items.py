"""The first items of a comprehension over a range of unknown length (analysis/first_items.py):
`[int(dim * 2 ** i) for i in range(n)][0]` is `dim` wherever the index does not raise. It was
the join of every item, `2 ** i` of an unknown `i`: a fresh int no name holds (timm's Swin sizes
its patch embedding by `embed_dim[0]` of such a list). An element that builds something is not
evaluated again, a filter or a write to the list forgets them, and an index past them, a loop
or `len` read the list as before. The program is our own; the shapes are checked against torch."""
import torch

from .test_int_not_none import inferred_and_run

SRC = """\
from typing import Tuple

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, dim: int = 8, n: int = 3, depths: Tuple[int, ...] = (2, 2, 6, 2)):
        super().__init__()
        self.num_layers = len(depths)
        dims = [int(dim * 2 ** i) for i in range(self.num_layers)]
        ups = [dim + 4 * i for i in range(2, n)]
        self.first = nn.Linear(3, dims[0])
        self.second = nn.Linear(3, dims[1])
        self.third = nn.Linear(3, dims[2])
        self.up = nn.Linear(3, ups[1])
        kept = [dim * (i + 1) for i in range(n) if i > 0]
        self.kept = nn.Linear(3, kept[0])
        written = [dim * (i + 1) for i in range(n)]
        written[0] = 5
        self.written = nn.Linear(3, written[0])
        self.blocks = [nn.Linear(dim, dim * (i + 1)) for i in range(n)]

    def forward(self, x):
        b, t, c = x.shape
        y = self.first(x)
        z = self.second(x)
        w = self.third(x)
        u = self.up(x)
        k = self.kept(x)
        v = self.written(x)
        return y, z, w, u, k, v
"""


def _check(got, outs):
    x = torch.zeros(2, 5, 3)
    env = {"__builtins__": {}, "x": x, "b": 2, "t": 5, "dim": 8, "n": 4}
    for name, t in outs.items():
        shape = got[name]["shape"]
        assert len(shape) == t.dim(), (name, shape)
        for d, size in zip(shape, t.shape):
            try:
                value = d if isinstance(d, int) else eval(d, {}, env)
            except (NameError, SyntaxError):  # a size no name holds (`?`, a fresh int): nothing claimed
                continue
            assert value == size, (name, shape, list(t.shape))
    return {name: got[name]["shape"] for name in outs}


def test_the_first_items_of_a_range_of_unknown_length():
    got, ns = inferred_and_run(SRC, "Net.forward")
    with torch.device("meta"):
        outs = dict(zip("yzwukv", ns["Net"](dim=8, n=4)(torch.zeros(2, 5, 3))))
    shapes = _check(got, outs)
    # (were int_N: the join of every item)
    assert shapes["y"] == ["b", "t", "dim"] and shapes["z"] == ["b", "t", "2*dim"], shapes
    assert shapes["u"] == ["b", "t", "dim + 12"], shapes
    # past the first two, filtered, or written: not claimed
    for name in "wkv":
        assert shapes[name][-1] not in ("dim", "2*dim", 5), (name, shapes[name])
    assert [list(outs[k].shape) for k in "yzwukv"] == [[2, 5, 8], [2, 5, 16], [2, 5, 32], [2, 5, 20], [2, 5, 16], [2, 5, 5]]
