"""Each part of a model run in its construction context has a share of imported-call steps of its
own (built.run_in_context, costs.context_share), as the model's forward has.

The parts (the file's own blocks inside the model) run after the model's forward, each on inputs
in its own names. They used to share the model's imported-call share: a decoder whose forward
spent it in a library's cache code left its layers' runs unable to read a configuration property
the library defines (`self.config._attn_implementation`), so the attention took the arm of an
unknown implementation and every line of the layers was lost in that context (BART, session 25).
The share is lowered here so that the model's forward spends it and one property read fits; the
test failed with one share for the model and its parts. The shape claimed is checked against
torch by running the same package."""
import importlib
import os
import sys

import torch

from shapehint.analysis import costs
from shapehint.analysis.api import analyze_source

HELPERS = "import torch\n\n\nclass Config:\n    def __init__(self, mode=\"plain\"):\n        self._mode = mode\n\n" \
    "    @property\n    def mode(self):\n        return self._mode\n\n\ndef churn(x):\n" + \
    "    x = x * 1.0\n" * 30 + "    return x\n"

MODEL = """import torch
import torch.nn as nn
from .helpers import Config, churn


class Part(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.proj = nn.Linear(8, 4)

    def forward(self, h):
        if self.config.mode != "plain":
            h = h.flatten(1)
        y = self.proj(h)
        return y


class Net(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.part = Part(config)

    def forward(self, x):
        x = churn(x)
        return self.part(x)


def net():
    return Net(Config())
"""

LINE = MODEL.splitlines().index("        y = self.proj(h)") + 1


def _package(tmp_path):
    os.makedirs(tmp_path / "pshare")
    for name, text in (("__init__.py", ""), ("helpers.py", HELPERS), ("m.py", MODEL)):
        (tmp_path / "pshare" / name).write_text(text)
    return tmp_path / "pshare" / "m.py"


def _part_context(path) -> list | None:
    """The shape of `y` in the part's own run in the factory's construction context."""
    r = analyze_source(path.read_text(), str(path))
    for v in r.infer_json()["values"]:
        if v["line"] == LINE and v["name"] == "y":
            for c in v.get("contexts", []):
                if c["context"].startswith("net:") and " via " not in c["context"] and not c.get("via"):
                    return c["shape"]
    return None


def _torch(root, h):
    sys.path.insert(0, str(root))
    try:
        for name in [m for m in sys.modules if m == "pshare" or m.startswith("pshare.")]:
            del sys.modules[name]
        model = importlib.import_module("pshare.m").net()
        return list(model.part(h).shape)
    finally:
        sys.path.remove(str(root))


def test_a_part_reads_an_imported_property_after_the_models_forward_spent_its_share(tmp_path, monkeypatch):
    monkeypatch.setattr(costs, "IMPORTED_STEPS", 40)  # the model's `churn` spends it; a property read fits
    path = _package(tmp_path)
    got = _part_context(path)
    assert got == ["*h", 4]  # the "plain" arm: `h`'s leading axes, then the projection's 4
    for h in (torch.zeros(2, 5, 8), torch.zeros(3, 8)):
        assert _torch(tmp_path, h) == list(h.shape[:-1]) + [4]


def test_the_part_gets_no_more_than_a_share(tmp_path, monkeypatch):
    # (a share too small for the property read itself leaves the part's line unknown, as before)
    monkeypatch.setattr(costs, "IMPORTED_STEPS", 1)
    assert _part_context(_package(tmp_path)) is None
