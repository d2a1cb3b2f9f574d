"""A construction whose plain base's `super().__init__` was cut off (past the share for an
imported module's code, costs.py) keeps what the subclass writes after it (unfinished.py):
transformers' `LlamaForCausalLM(config)` calls another library's base constructor, and its
`self.model` and `self.lm_head` were unknown with the instance. What the base may have set (or
changed: `self.groups`, a class attribute 1 that its constructor sets to 4) reads as unknown,
never the class's value. Checked against torch by running the same package."""
import torch

from shapehint.analysis import costs
from shapehint.analysis.api import analyze_source

from .program_runs import run_package, write_package

FILES = {
    "plain/__init__.py": "",
    "plain/base.py": """import torch.nn as nn


class Base(nn.Module):
    groups = 1

    def __init__(self, width):
        super().__init__()
        self.groups = 4
        self.width = width
""",
    "plain/m.py": """import torch
import torch.nn as nn
from .base import Base


class Head(Base):
    def __init__(self, width):
        super().__init__(width)
        self.proj = nn.Linear(width, 8)

    def forward(self, x):
        y = self.proj(x)
        z = y.reshape(y.shape[0], self.groups, -1)
        return y, z


def run(x):
    assert x.shape == (2, 16)
    head = Head(16)
    y, z = head(x)
    return y, z
""",
}


def _shapes(path):
    r = analyze_source(path.read_text(), str(path))
    return {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["function"] == "run"}


def _evaluated(shape, x):
    return [None if d == "?" else d if isinstance(d, int) else eval(d, {}, {"x": x}) for d in shape]


def test_what_the_subclass_writes_after_a_cut_base_is_kept_and_the_rest_unknown(tmp_path, monkeypatch):
    path = write_package(tmp_path, FILES)
    x = torch.randn(2, 16)
    want_y, want_z = [list(t.shape) for t in run_package(tmp_path, "plain.m", x)]
    monkeypatch.setattr(costs, "BUILDING_STEPS", 0)
    got = _shapes(path)
    assert _evaluated(got["y"], x) == want_y  # the subclass's own layer: kept
    z = got.get("z")
    assert z is None or all(g is None or g == w for g, w in zip(_evaluated(z, x), want_z))  # never groups=1
