"""The first items of a comprehension over a zip with a list of unknown length whose items have
names (analysis/bounded_loops.named_item, first_items.of_items): `[r if r <= w else w for r, w
in zip(res, (3, 5))][0]` is `min(res[0], 3)` wherever the index does not raise — the zip had a
tuple 0 there, made of `res[0]` and 3. It was the join of every item, a size no name holds (the
window of a windowed attention block is computed so from its input resolution). An element that
builds something is not evaluated again. The program is our own; every claimed size is checked
against torch on the meta device, with lists as long as the known one, longer and with other
values."""
import pytest
import torch

from .test_int_not_none import inferred_and_run

SRC = """\
from typing import List

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, res: List[int]):
        super().__init__()
        ws = [r if r <= w else w for r, w in zip(res, (3, 5))]
        sums = [r + w for r, w in zip(res, (3, 5))]
        self.a = nn.Linear(2, ws[0])
        self.b = nn.Linear(2, ws[1])
        self.c = nn.Linear(2, sums[1])
        built = [nn.Linear(2, r) for r, w in zip(res, (3, 5))]
        self.d = built[0]

    def forward(self, x):
        ya = self.a(x)
        yb = self.b(x)
        yc = self.c(x)
        yd = self.d(x)
        return ya, yb, yc, yd
"""


@pytest.mark.parametrize("res", [[2, 9], [7, 1], [4, 4, 6], [3, 5, 1, 1]])
def test_zip_with_a_named_list_keeps_its_first_items(res):
    got, ns = inferred_and_run(SRC, "Net.forward")
    x = torch.zeros(6, 2, device="meta")
    net = ns["Net"](res).to("meta")
    outs = dict(zip(["ya", "yb", "yc", "yd"], net(x)))
    env = {"__builtins__": {"min": min, "max": max}, "res": res, "self": net}
    shapes = {k: got[k]["shape"] for k in outs}
    # (were `?`: the join of every item)
    assert shapes["ya"][-1] == "min(3, res[0])" and shapes["yb"][-1] == "min(5, res[1])", shapes
    assert shapes["yc"][-1] == "res[1] + 5", shapes
    # (builds a layer: not evaluated again; the size the layer holds is named)
    assert shapes["yd"][-1] in ("?", "self.d.out_features"), shapes
    for k, t in outs.items():
        if shapes[k][-1] != "?":
            assert eval(shapes[k][-1], env) == t.shape[-1], (k, shapes[k], list(t.shape))


def test_a_list_too_short_raises_before_any_claim_is_read():
    _, ns = inferred_and_run(SRC, "Net.forward")
    with pytest.raises(IndexError):
        ns["Net"]([4])
