"""An imported base constructor's helpers run within half the steps the constructor has left
(costs.constructor_helper), so that a helper past the share (a library base's set-up machinery,
probing which kernels exist) no longer cuts the whole constructor off: what the constructor
stores after the helper (`self.config = config`, the model's configuration object, then
`self.config.heads` read in `forward`) stays known. A helper cut off that was given the
instance may have set attributes on it: those read as unknown, never the class's value.
Checked against torch by running the same package."""
import torch

from shapehint.analysis import costs
from shapehint.analysis.api import analyze_source

from .program_runs import run_package, write_package

BASE = """import torch.nn as nn


def _probe(n):
    a = n + 1
    b = a * 2
    c = b - a
    return c


class Base(nn.Module):
    groups = 1

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.kind = self._expensive(config)
        self.ready = True

    def _expensive(self, config):
        total = 0
        for k in (1, 2, 3, 4, 5, 6, 7, 8):
            total = total + _probe(k) + _probe(k + 1) + _probe(k + 2)
        self.groups = 4
        return total
"""

MODEL = """import torch
import torch.nn as nn
from .base import Base


class Config:
    def __init__(self, width, heads):
        self.width = width
        self.heads = heads


class Head(Base):
    def __init__(self, config):
        super().__init__(config)
        self.proj = nn.Linear(config.width, 8)

    def forward(self, x):
        y = self.proj(x)
        z = y.reshape(y.shape[0], self.config.heads, -1)
        g = y.reshape(y.shape[0], self.groups, -1)
        return y, z, g


def run(x):
    assert x.shape == (2, 16)
    head = Head(Config(16, 2))
    y, z, g = head(x)
    return y, z, g
"""

FILES = {"cut/__init__.py": "", "cut/base.py": BASE, "cut/m.py": MODEL}


def _shapes(path):
    r = analyze_source(path.read_text(), str(path))
    return {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["function"] == "run"}


def _evaluated(shape, x):
    return [None if d == "?" else d if isinstance(d, int) else eval(d, {}, {"x": x}) for d in shape]


def _small_share(monkeypatch):
    """The constructions' share: the base's helper runs past it, the constructor's own
    statements not."""
    monkeypatch.setattr(costs, "BUILDING_STEPS", 200)


def test_what_a_base_constructor_stores_after_a_helper_past_its_share_is_known(tmp_path, monkeypatch):
    path = write_package(tmp_path, FILES)
    x = torch.randn(2, 16)
    want = [list(t.shape) for t in run_package(tmp_path, "cut.m", x)]
    _small_share(monkeypatch)
    got = _shapes(path)
    assert _evaluated(got["y"], x) == want[0]
    assert _evaluated(got.get("z") or [], x) == want[1]  # self.config.heads: the constructor argument's


def test_what_a_helper_cut_off_may_have_set_reads_as_unknown(tmp_path, monkeypatch):
    path = write_package(tmp_path, FILES)
    x = torch.randn(2, 16)
    want_g = list(run_package(tmp_path, "cut.m", x)[2].shape)
    _small_share(monkeypatch)
    g = _shapes(path).get("g")
    assert g is None or all(a is None or a == w for a, w in zip(_evaluated(g, x), want_g))  # never groups=1


def test_the_helper_runs_past_the_share(tmp_path, monkeypatch):
    """The premise of the two tests above: with the whole constructor's share, its helper runs
    and `self.groups` is the 4 it sets."""
    path = write_package(tmp_path, FILES)
    x = torch.randn(2, 16)
    want_g = list(run_package(tmp_path, "cut.m", x)[2].shape)
    assert _evaluated(_shapes(path)["g"], x) == want_g
