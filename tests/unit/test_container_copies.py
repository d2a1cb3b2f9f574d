"""Copies of containers (analysis/copies.py): `copy.deepcopy(d)`, `copy.copy(d)`, `d.copy()`,
`l.copy()` give a new container holding what the original held, so a builder that hands each
repeated block its own copy of one decoded dict reads its keys; a write to a copy does not show
in the original, except through what a shallow copy shares. And `math.ceil`/`math.floor` of a
quotient of two ints whose divisor is not known (`math.ceil(out_chs / ratio)`): Python's floor
division. Every shape checked against torch running the same program (meta tensors)."""
import pytest
import torch

from .program_runs import infer
from .shape_eval import evaluated, run_program

COPIES = """import copy
from copy import deepcopy

import torch
import torch.nn as nn


def decoded():
    return dict(out_chs=24, kernel=3, inner=dict(width=8))


def repeated(x):
    ba = decoded()
    blocks = [deepcopy(ba) for _ in range(2)]
    blocks[1]['out_chs'] = 40
    first = nn.Conv2d(3, blocks[0]['out_chs'], blocks[0]['kernel'])(x)
    second = nn.Conv2d(3, blocks[1]['out_chs'], 1)(x)
    orig = nn.Conv2d(3, ba['out_chs'], 1)(x)
    return first, second, orig


def nested(x):
    cfg = decoded()
    deep = deepcopy(cfg)
    deep['inner']['width'] = 16
    kept = nn.Conv2d(3, cfg['inner']['width'], 1)(x)
    shallow = copy.copy(cfg)
    shallow['inner']['width'] = 12
    shared = nn.Conv2d(3, cfg['inner']['width'], 1)(x)
    return kept, shared


def methods(x):
    d = {'c': 5}
    c = d.copy()
    c['c'] = 7
    own = nn.Conv2d(3, c['c'], 1)(x)
    left = nn.Conv2d(3, d['c'], 1)(x)
    sizes = [4, 6]
    more = sizes.copy()
    more.append(9)
    n = torch.zeros(len(sizes), len(more))
    return own, left, n


def run(x):
    return (*repeated(x), *nested(x), *methods(x))
"""

CEIL = """import math

import torch
import torch.nn as nn


class Ghost(nn.Module):
    def __init__(self, in_chs: int, out_chs: int, ratio: int = 2):
        super().__init__()
        init_chs = math.ceil(out_chs / ratio)
        low_chs = math.floor(out_chs / ratio)
        self.primary = nn.Conv2d(in_chs, init_chs, 1)
        self.low = nn.Conv2d(in_chs, low_chs, 1)

    def forward(self, x):
        y = self.primary(x)
        z = self.low(x)
        return y, z
"""


def _values(out):
    return {(v["function"], v["name"]): v["shape"] for v in out["values"]}


def test_copies_are_new_containers_holding_the_same_items(tmp_path):
    x = torch.empty(2, 3, 10, 10, device="meta")
    observed = [list(t.shape) for t in run_program(COPIES)["run"](x)]
    first, second, orig, kept, shared, own, left, n = observed
    assert (first[1], second[1], orig[1], kept[1], shared[1], own[1], left[1], n) == (24, 40, 24, 8, 12, 7, 5, [2, 3])
    vals = _values(infer(tmp_path, COPIES))
    assert vals[("repeated", "first")] == ["x.shape[0]", 24, "x.shape[2] - 2", "x.shape[3] - 2"]
    assert vals[("repeated", "second")][1] == second[1]
    assert vals[("repeated", "orig")][1] == orig[1]  # (a write to a copy: not the original's)
    assert vals[("nested", "kept")][1] == kept[1]  # (a deep copy's inner dict is its own)
    assert vals[("nested", "shared")][1] == shared[1]  # (a shallow copy's is the original's)
    assert vals[("methods", "own")][1] == own[1]
    assert vals[("methods", "left")][1] == left[1]
    assert vals[("methods", "n")] == n


@pytest.mark.parametrize("out_chs,ratio", [(8, 2), (7, 2), (7, 3), (16, 5), (1, 4)])
def test_ceil_and_floor_of_a_quotient_by_an_int_not_known(tmp_path, out_chs, ratio):
    vals = _values(infer(tmp_path, CEIL))
    m = run_program(CEIL)["Ghost"](3, out_chs, ratio).to("meta")
    y, z = m(torch.empty(2, 3, 5, 5, device="meta"))
    env = {"out_chs": out_chs, "ratio": ratio, "x": torch.empty(2, 3, 5, 5, device="meta")}
    assert evaluated(vals[("Ghost.forward", "y")], env) == list(y.shape)
    assert evaluated(vals[("Ghost.forward", "z")], env) == list(z.shape)
