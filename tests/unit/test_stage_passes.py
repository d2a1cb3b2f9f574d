"""A constructor that builds one stage per pass of a loop of unknown count, each with its own
width and stride (`for i in range(config.num_stages)`, `stride=2 if i > 0 else 1`), and a
`forward` that runs them in a `for` (analysis/stage_passes.py). Run to a fixpoint, the passes
were joined, so every shape in or after the stage loop was `[B, ?, ?, ?]`. Now the first passes
are followed one by one: `x = stage(x)` lists each pass's shape as `iteration k` (the stage's own
width, the sides halved once more each pass), and the loop's later passes and what follows it
claim no pass's width. Every claim is checked against torch on the meta device, for models of
two to six stages (fewer stages than the passes followed, and more)."""
import re
from types import SimpleNamespace

import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
from torch import nn


class Stage(nn.Module):
    def __init__(self, cin, cout, stride=2):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size=3, stride=stride, padding=1)

    def forward(self, x):
        x = self.conv(x)
        return x


class Encoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.stages = nn.ModuleList()
        prev = config.widths[0]
        for i in range(config.num_stages):
            out = config.widths[i]
            stage = Stage(prev, out, stride=2 if i > 0 else 1)
            self.stages.append(stage)
            prev = out

    def forward(self, x):
        for stage in self.stages:
            x = stage(x)
        y = x
        return y


class Extended(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.stages = nn.ModuleList()
        prev = config.widths[0]
        for i in range(config.num_stages):
            self.stages.append(Stage(prev, config.widths[i], stride=2 if i > 0 else 1))
            prev = config.widths[i]
        self.stages.append(Stage(prev, prev, stride=1))

    def forward(self, x):
        for stage in self.stages:
            x = stage(x)
        return x
'''

IN = [2, 8, 64, 64]
WIDTHS = [8, 16, 32, 64, 128, 256]


def _config(n: int):
    return SimpleNamespace(num_stages=n, widths=WIDTHS[:n])


def _values():
    return analyze_source(PROGRAM, "stages.py").infer_json()["values"]


def _value(values, function, name, line=None):
    hit = [v for v in values if v["function"] == function and v["name"] == name
           and (line is None or v["line"] == line)]
    return hit[0] if hit else None


def _torch_passes(cls: str, n: int) -> list:
    """The shape `x = stage(x)` takes in each pass of a model of `n` stages."""
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "stages.py", "exec"), ns)
    net = ns[cls](_config(n)).to("meta")
    seen = []
    for stage in net.stages:
        stage.register_forward_hook(lambda m, a, out: seen.append(list(out.shape)))
    net(torch.empty(*IN, device="meta"))
    return seen


def _holds(shape, observed, n: int) -> bool:
    """Every dim of `shape` that evaluates, under the model's config and the input's sizes, is
    the observed size ('?' evaluates to nothing)."""
    assert len(shape) == len(observed), (shape, observed)
    for d, o in zip(shape, observed):
        if d == "?":
            continue
        text = re.sub(r"x\.shape\[(\d)\]", lambda m: str(IN[int(m.group(1))]), str(d))
        if eval(text, {}, {"config": _config(n)}) != o:
            return False
    return True


def _iterations(v) -> dict:
    out = {}
    for c in v.get("contexts") or []:
        m = re.fullmatch(r"iteration (\d+)", c["context"])
        if m and not c.get("via") and not c.get("detail"):
            out.setdefault(int(m.group(1)), []).append(c["shape"])
    return out


def test_torch_halves_the_sides_each_pass_after_the_first():
    assert _torch_passes("Encoder", 4) == [[2, 8, 64, 64], [2, 16, 32, 32], [2, 32, 16, 16], [2, 64, 8, 8]]


def test_each_followed_pass_has_its_stage_width_and_sides():
    v = _value(_values(), "Encoder.forward", "x")
    it = _iterations(v)
    # (each was `[x.shape[0], ?, ?, ?]`: the passes joined)
    assert it[0] == [["x.shape[0]", "config.widths[0]", "x.shape[2]", "x.shape[3]"]]
    assert it[1] == [["x.shape[0]", "config.widths[1]", "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]]
    assert sorted(it) == [0, 1, 2, 3]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_every_claim_holds_in_torch(n):
    values = _values()
    v = _value(values, "Encoder.forward", "x")
    observed = _torch_passes("Encoder", n)
    it = _iterations(v)
    for k, obs in enumerate(observed):
        assert _holds(v["shape"], obs, n), (v["shape"], obs)
        for shape in it.get(k, []):
            assert _holds(shape, obs, n), (k, shape, obs)
    for c in v.get("contexts") or []:  # the later passes: any of them
        if c["context"].endswith("or later") and not c.get("via"):
            assert any(_holds(c["shape"], obs, n) for obs in observed[4:]) or len(observed) <= 4, c
    y = _value(values, "Encoder.forward", "y")
    assert _holds(y["shape"], observed[-1], n), (y["shape"], observed[-1])


def test_what_follows_the_loop_claims_no_pass():
    y = _value(_values(), "Encoder.forward", "y")
    assert y["shape"] == ["x.shape[0]", "?", "?", "?"]


def test_a_write_after_the_loop_forgets_the_passes():
    v = _value(_values(), "Extended.forward", "x")
    assert not _iterations(v)
    for n in (2, 5):
        for obs in _torch_passes("Extended", n):
            assert _holds(v["shape"], obs, n)


def test_the_stage_sees_each_pass_input():
    v = _value(_values(), "Stage.forward", "x")
    shapes = [c["shape"] for c in v["contexts"] if c["context"] == "Encoder.forward:28"]
    assert ["x.shape[0]", "config.widths[2]", "((x.shape[2] - 1)//2)//2 + 1", "((x.shape[3] - 1)//2)//2 + 1"] in shapes
