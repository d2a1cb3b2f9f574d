"""Wrong shapes found by the real-model benchmark on transformers models (issues 24/25): each
program here is small and our own, run under PyTorch with a configuration other than the
defaults, and every shape the analysis shows for it must agree with the run (or be missing)."""
import pytest

torch = pytest.importorskip("torch")

from shapehint.analysis.api import analyze_source  # noqa: E402
from shapehint.devicerun.compare import Unbound, eval_dim  # noqa: E402


def _values(text):
    res = analyze_source(text, "wrong.py")
    assert not [d for d in res.diagnostics if d.severity == "error"]
    return res.infer_json()["values"]


def _agrees(shape, observed, env) -> bool:
    """`shape` (as infer prints it, no variadic segment) against the observed sizes: the rank, and
    each dim that evaluates under `env`."""
    if shape is None:
        return True
    if len(shape) != len(observed):
        return False
    for d, o in zip(shape, observed):
        try:
            v = eval_dim(d, env)
        except Unbound:
            continue
        if v is not None and v != o:
            return False
    return True


# a configuration's list of sizes (`hidden_sizes`, `depths`; HF ResNet, Swin) builds one stage
# per item: the default's four stages of 256..2048 channels are one configuration of many
STAGES = '''import torch
from torch import nn


class NetConfig:
    def __init__(self, stem=16, hidden_sizes=[256, 512, 1024, 2048], depths=[3, 4, 6, 3]):
        self.stem = stem
        self.hidden_sizes = hidden_sizes
        self.depths = depths


class Block(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride, 1)

    def forward(self, x):
        h = self.conv(x)
        return h


class Stage(nn.Module):
    def __init__(self, cin, cout, depth):
        super().__init__()
        self.blocks = nn.Sequential(Block(cin, cout, 2), *[Block(cout, cout) for _ in range(depth - 1)])

    def forward(self, x):
        y = self.blocks(x)
        return y


class Net(nn.Module):
    def __init__(self, config: NetConfig):
        super().__init__()
        self.stem = nn.Conv2d(3, config.stem, 3, 1, 1)
        first = config.hidden_sizes[0]
        self.stages = nn.ModuleList([Stage(config.stem, first, config.depths[0])])
        for (cin, cout), d in zip(zip(config.hidden_sizes, config.hidden_sizes[1:]), config.depths[1:]):
            self.stages.append(Stage(cin, cout, d))

    def forward(self, x):
        h = self.stem(x)
        for stage in self.stages:
            h = stage(h)
        out = h.mean(dim=(2, 3))
        return out
'''


def test_a_configuration_list_default_is_not_the_model_built():
    values = _values(STAGES)
    scope = {}
    exec(compile(STAGES, "wrong.py", "exec"), scope)
    net = scope["Net"](scope["NetConfig"](stem=8, hidden_sizes=[8, 12], depths=[1, 2]))
    x = torch.zeros(2, 3, 16, 16)
    env = {f"x.shape[{i}]": d for i, d in enumerate(x.shape)}
    env.update({"config.stem": 8, "config.hidden_sizes[0]": 8})
    shown = {v["name"]: v["shape"] for v in values if v["function"] == "Net.forward"}
    assert _agrees(shown.get("out"), list(net(x).shape), env)
    # no default width is claimed anywhere, in any context
    claims = [v["shape"] for v in values] + [c["shape"] for v in values for c in v.get("contexts", [])]
    assert not {256, 512, 1024, 2048} & {d for s in claims if s for d in s}
    # what is known still shows: the stem's configured width
    stem = next(v["shape"] for v in values if v["function"] == "Net.forward" and v["name"] == "h")
    assert stem[:2] == ["x.shape[0]", "config.stem"]
