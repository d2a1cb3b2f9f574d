"""A square product's size that a broadcast left open, pinned by the product's contraction
(ops/families/matmul._pinned): `attn + bias` of sizes N and A is `max(N, A)` on both last axes
(one side may be 1), and `attn @ v` then requires `max(N, A) == N`, so its rows are N on every
path that goes on (`v.T @ attn`: its columns). A windowed attention adds a relative-position
bias of the window's area to its scores this way; the heads' output was `max(N, area)` and the
reshape back to `(B, N, -1)` lost its last size. The program is our own; each claimed shape is
checked against torch on the meta device, with N equal to the area, the bias broadcast (area
1), and N = 1 against a larger area, where torch raises at the product."""
import pytest
import torch

from .test_int_not_none import inferred_and_run

SRC = """\
import torch
from torch import nn


class Attn(nn.Module):
    def __init__(self, dim: int, heads: int, win: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.bias = nn.Parameter(torch.zeros(heads, win * win, win * win))

    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv(x).reshape(B, N, 3, self.heads, -1).permute(2, 0, 3, 1, 4).unbind(0)
        attn = q @ k.transpose(-2, -1)
        scores = attn + self.bias.unsqueeze(0)
        out = scores @ v
        y = out.transpose(1, 2).reshape(B, N, -1)
        back = v.transpose(-2, -1) @ scores
        return scores, out, y, back
"""


def _run(ns, n, win):
    with torch.device("meta"):
        return ns["Attn"](dim=8, heads=2, win=win)(torch.zeros(3, n, 8))


@pytest.mark.parametrize("n,win", [(4, 2), (9, 3), (5, 1)])
def test_the_contraction_pins_the_broadcast_size(n, win):
    got, ns = inferred_and_run(SRC, "Attn.forward")
    shapes = {k: got[k]["shape"] for k in ("scores", "out", "y", "back")}
    assert shapes["scores"][-2:] == ["max(N, win*win)"] * 2, shapes  # (either side may be 1)
    assert shapes["out"][2] == "N" and shapes["back"][-1] == "N", shapes  # (were max(N, win*win))
    assert shapes["y"] == ["B", "N", "heads*((3*dim)//(3*heads))"], shapes
    env = {"__builtins__": {"max": max}, "B": 3, "N": n, "dim": 8, "heads": 2, "win": win}
    for name, t in zip(("scores", "out", "y", "back"), _run(ns, n, win)):
        assert [d if isinstance(d, int) else eval(d, env) for d in shapes[name]] == list(t.shape), (name, shapes[name])


def test_where_the_sizes_differ_the_product_raises():
    _, ns = inferred_and_run(SRC, "Attn.forward")
    with pytest.raises(RuntimeError):
        _run(ns, 1, 2)  # (scores broadcast to 4 x 4; v has 1 row)
