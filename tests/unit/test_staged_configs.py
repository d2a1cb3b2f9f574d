"""A hierarchical model whose stages a loop over a configuration builds (issue 27, ConvNeXt's
shape): `cfg.widths[i]` read at the loop's index is one item of several, with no name, yet an int
wherever a layer takes one (`operands.configured_item`), so a block's optional layer scale
(`nn.Parameter(cfg.scale * torch.ones(dim))` or None) stays a tensor; drop-path rates made by
`torch.linspace(0, p, sum(cfg.depths)).split(cfg.depths)` and `.tolist()` are lists of floats
(`linspace` of a lost count is 1-D, `tolist` of a float tensor nests lists of floats), and a
final LayerNorm writes the trailing size it normalizes over where the input's was unknown.
Before, the stage loop's output was unknown, and the pooled features `[*?, ?]`. The program is
our own; every shape is checked against torch, with a stage of depth 0 among the configurations."""
import types

import pytest

from .program_runs import infer, run
from .shape_eval import evaluated

PROGRAM = '''import torch
import torch.nn as nn


def drop_path(x, p, training):
    if p == 0.0 or not training:
        return x
    keep = 1 - p
    mask = keep + torch.rand((x.shape[0],) + (1,) * (x.ndim - 1), device=x.device)
    mask = mask.floor()
    return x.div(keep) * mask


class DropPath(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        return drop_path(x, self.p, self.training)


class Block(nn.Module):
    def __init__(self, cfg, dim, p=0.0):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, kernel_size=3, padding=1, groups=dim)
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 2 * dim)
        self.proj = nn.Linear(2 * dim, dim)
        self.gamma = nn.Parameter(cfg.scale * torch.ones(dim)) if cfg.scale > 0 else None
        self.drop = DropPath(p) if p > 0.0 else nn.Identity()

    def forward(self, x):
        skip = x
        h = self.dw(x)
        h = h.permute(0, 2, 3, 1)
        h = self.norm(h)
        h = self.proj(self.fc(h))
        if self.gamma is not None:
            h = self.gamma * h
        h = h.permute(0, 3, 1, 2)
        out = skip + self.drop(h)
        return out


class Stage(nn.Module):
    def __init__(self, cfg, cin, cout, stride=2, depth=2, rates=None):
        super().__init__()
        if cin != cout or stride > 1:
            self.down = nn.ModuleList([nn.Conv2d(cin, cout, kernel_size=stride, stride=stride)])
        else:
            self.down = nn.ModuleList()
        rates = rates or [0.0] * depth
        self.blocks = nn.ModuleList([Block(cfg, cout, rates[j]) for j in range(depth)])

    def forward(self, x):
        for m in self.down:
            x = m(x)
        for b in self.blocks:
            x = b(x)
        return x


class Encoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        rates = [r.tolist() for r in torch.linspace(0, cfg.drop, sum(cfg.depths)).split(cfg.depths)]
        self.stages = nn.ModuleList()
        prev = cfg.widths[0]
        for i in range(cfg.num_stages):
            self.stages.append(Stage(cfg, prev, cfg.widths[i], stride=2 if i > 0 else 1,
                                     depth=cfg.depths[i], rates=rates[i]))
            prev = cfg.widths[i]

    def forward(self, h):
        for stage in self.stages:
            h = stage(h)
        return h


class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.stem = nn.Conv2d(3, cfg.widths[0], kernel_size=4, stride=4)
        self.encoder = Encoder(cfg)
        self.head_norm = nn.LayerNorm(cfg.widths[-1])

    def forward(self, pixels):
        emb = self.stem(pixels)
        last = self.encoder(emb)
        pooled = self.head_norm(last.mean([-2, -1]))
        return pooled
'''

CONFIGS = [dict(widths=[8, 16, 32], depths=[1, 2, 1], scale=1e-6, drop=0.1),
           dict(widths=[4, 12], depths=[0, 1], scale=0.0, drop=0.0),
           dict(widths=[6, 6, 10], depths=[2, 0, 1], scale=0.5, drop=0.2)]


@pytest.fixture(scope="module")
def answer(tmp_path_factory):
    return infer(tmp_path_factory.mktemp("staged"), PROGRAM)


def _shape(answer, function, name):
    got = [v["shape"] for v in answer["values"] if v["function"] == function and v["name"] == name]
    assert got, (function, name)
    return got[-1]


def test_the_stage_loop_keeps_batch_and_rank(answer):
    assert _shape(answer, "Encoder.forward", "h") == ["h.shape[0]", "?", "?", "?"]
    assert _shape(answer, "Net.forward", "last") == ["pixels.shape[0]", "?", "?", "?"]
    assert _shape(answer, "Net.forward", "pooled") == ["pixels.shape[0]", "cfg.widths[-1]"]
    assert not [d for d in answer["diagnostics"] if d.get("severity") == "error"]


def test_the_drop_path_keeps_its_input_shape(answer):
    assert _shape(answer, "Block.forward", "out") == ["x.shape[0]", "dim", "x.shape[2]", "x.shape[3]"]


@pytest.mark.parametrize("conf", CONFIGS)
def test_against_torch(answer, conf):
    torch = pytest.importorskip("torch")
    scope = run(PROGRAM)
    cfg = types.SimpleNamespace(num_stages=len(conf["widths"]), **conf)
    net = scope["Net"](cfg).to("meta").train()  # (training: the drop paths run)
    pixels = torch.empty(2, 3, 32, 32, device="meta")
    last = net.encoder(net.stem(pixels))
    pooled = net(pixels)
    env = {"pixels": pixels, "cfg": cfg}
    want = _shape(answer, "Net.forward", "pooled")
    assert evaluated(want, env) == list(pooled.shape)
    got = evaluated(_shape(answer, "Net.forward", "last"), env)
    assert len(got) == last.dim() and got[0] == last.shape[0]
