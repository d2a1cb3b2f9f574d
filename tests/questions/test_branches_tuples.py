"""Q3 on conditions that compare sizes with tuples, torch.Size and lists (equal and different
lengths, symbolic items, `!=`, sizes built with `size()[:-1] + (h, d)`); the decisions are
checked by executing the program."""
import random

import torch

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.branches import answer_branches

from .helpers import branch_outcomes, line_of, namespace

SRC = '''import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = 4
        self.proj = nn.Linear(64, 64)

    def forward(self, x: Float[Tensor, "B T 64"], m: Float[Tensor, "B S"]):
        h = self.proj(x)
        if h.size() != (x.shape[0], x.shape[1], 64):
            raise ValueError("projection changed the size")
        if x.shape == (x.shape[0], x.shape[1]):
            h = h * 2
        new_shape = h.size()[:-1] + (self.heads, 16)
        if new_shape == (x.shape[0], x.shape[1], 4, 16):
            h = h.view(new_shape).reshape(x.shape)
        if m.size() == torch.Size([x.shape[0], x.shape[1]]):
            h = h * m.unsqueeze(-1)
        if x.shape == [x.shape[0], x.shape[1], 64]:
            h = h + 1
        if m.shape != (m.shape[0], 8):
            h = h - 1
        return h
'''

EXPECTED = {
    "h.size() != (x.shape[0], x.shape[1], 64)": "always-false",
    "x.shape == (x.shape[0], x.shape[1])": "always-false",
    "new_shape == (x.shape[0], x.shape[1], 4, 16)": "always-true",
    "m.size() == torch.Size([x.shape[0], x.shape[1]])": "depends",
    "x.shape == [x.shape[0], x.shape[1], 64]": "always-false",
    "m.shape != (m.shape[0], 8)": "depends",
}


def test_size_comparisons_decided_and_executed():
    r = analyze_session(SRC, "m.py")
    got = {b["condition"]: b for b in answer_branches(r)}
    assert {c: got[c]["status"] for c in EXPECTED} == EXPECTED
    model = namespace(SRC)["M"]()
    lines = {c: (line_of(SRC, f"if {c}"), line_of(SRC, f"if {c}") + 1) for c in EXPECTED}
    inputs = []
    for b in got.values():  # the witnesses of each outcome, then random admissible inputs
        inputs += [w for w in b["witnesses"].values() if w is not None]
    rng = random.Random(11)
    for _ in range(8):
        B, T = rng.randint(1, 3), rng.randint(1, 9)
        inputs.append({"x": [B, T, 64], "m": [B, rng.choice([T, 8, rng.randint(1, 9)])]})
    seen = {c: set() for c in EXPECTED}
    for shapes in inputs:
        x, m = torch.randn(*shapes["x"]), torch.randn(*shapes["m"])
        for c, (if_line, body_line) in lines.items():
            seen[c] |= branch_outcomes(lambda: model(x, m), if_line, body_line)
    for c, status in EXPECTED.items():
        assert seen[c] == {"always-true": {True}, "always-false": {False}, "depends": {True, False}}[status], c


def test_an_assumption_decides_a_size_inequality():
    r = analyze_session(SRC, "m.py")
    got = {b["condition"]: b for b in answer_branches(r, ["M.forward: m.shape[1] == 8"])}
    assert got["m.shape != (m.shape[0], 8)"]["status"] == "always-false"
    assert got["m.size() == torch.Size([x.shape[0], x.shape[1]])"]["status"] == "depends"  # T may be 8
