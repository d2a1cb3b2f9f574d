"""A configuration's attribute on one path and an int on the other (`config.n_inner if
config.n_inner is not None else 4 * hidden`, GPT-2's MLP width), taken as a layer's size: one
fresh symbol for every use (operands.hyperparameter, SizedHyperparameterV), so the layer that
widens and the one that narrows back agree, and nothing is claimed of the width itself. Before,
the join was of unknown value, the widening layer's output of unknown size, and the narrowing
layer's (a transposed-weight layer that views its output as `x.size()[:-1] + (nf,)`) of unknown
rank. The shapes are checked against torch by running the program with either configuration."""
from types import SimpleNamespace

import pytest
import torch

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
import torch.nn as nn


class Proj(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.zeros(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class MLP(nn.Module):
    def __init__(self, width, config):
        super().__init__()
        self.up = Proj(width, config.hidden_size)
        self.down = Proj(config.hidden_size, width)

    def forward(self, h):
        return self.down(self.up(h))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        hidden = config.hidden_size
        inner_dim = config.n_inner if config.n_inner is not None else 4 * hidden
        self.mlp = MLP(inner_dim, config)
        self.up = nn.Linear(hidden, inner_dim)
        self.down = nn.Linear(inner_dim, hidden)
        self.w1 = nn.Parameter(torch.zeros(inner_dim, hidden))
        self.w2 = nn.Parameter(torch.zeros(hidden, inner_dim))

    def forward(self, x):
        y = self.mlp(x)
        z = x + y
        u = self.up(x)
        w = self.down(u)
        g = self.w1 @ self.w2
        return z, u, w, g


def run(config, x):
    return Block(config)(x)
'''


def _analysis():
    r = analyze_source(PROGRAM, "m.py")
    assert not r.stats.get("internal_errors"), r.stats
    shapes = {v.name: v.shape for v in r.values if v.function == "Block.forward"}
    return shapes, [d for d in r.diagnostics if d.severity == "error"]


def _run(n_inner):
    scope: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), scope)
    return scope["run"](SimpleNamespace(hidden_size=8, n_inner=n_inner), torch.zeros(2, 3, 8))


def test_the_joined_width_is_a_size_the_narrowing_layers_take():
    shapes, errors = _analysis()
    assert not errors
    assert str(shapes["y"]) == str(shapes["z"]) == str(shapes["w"]) == "[*x, config.hidden_size]"
    for n_inner in (None, 12):
        z, u, w, g = _run(n_inner)
        assert z.shape == w.shape == (2, 3, 8)


def test_nothing_is_claimed_of_the_width():
    shapes, _ = _analysis()
    # 32 or 12 at run time: no number, no configuration's name; at most the size the layer holds
    assert str(shapes["u"]).endswith((", ?]", ", self.up.out_features]")), shapes["u"]
    assert {_run(n)[1].shape[-1] for n in (None, 12)} == {32, 12}
    scope: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), scope)
    for n in (None, 12):
        block = scope["Block"](SimpleNamespace(hidden_size=8, n_inner=n))
        assert block(torch.zeros(2, 3, 8))[1].shape[-1] == block.up.out_features


def test_every_use_of_the_width_is_the_same_size():
    g = _analysis()[0]["g"]  # [inner_dim, hidden] @ [hidden, inner_dim]
    assert g.rank == 2 and g.dims[0] == g.dims[1] and str(g.dims[0]).startswith("?")
    assert [tuple(_run(n)[3].shape) for n in (None, 12)] == [(32, 32), (12, 12)]
