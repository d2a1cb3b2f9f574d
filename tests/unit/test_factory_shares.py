"""Each factory's model is its own (analysis/costs.py: `new_building_share`, `context_share`):
a file of many factories (torchvision's efficientnet.py has eleven) builds each model within a
share of construction steps of its own, and runs each model's forward in its construction
context with a share of imported-call steps of its own. Before, both shares were the whole
file's: the later factories' models (efficientnet_v2_s, the eleventh) were built from unknown
layers and their forwards lost every shape. The shares are lowered here so that one factory fits
and three do not; each test failed with the shares per analysis. Every shape claimed is checked
against torch by running the same package."""
import importlib
import os
import sys

import torch

from shapehint.analysis import costs, sized_kwargs
from shapehint.analysis.api import analyze_source

LAYERS = 'import torch\nimport torch.nn as nn\n\n\nclass ConvBlock(nn.Sequential):\n    def __init__(self, cin, cout, stride=1):\n        layers = [nn.Conv2d(cin, cout, 3, stride, 1)]\n        for _ in range(3):\n            layers.append(nn.Identity())\n        layers.append(nn.ReLU())\n        super().__init__(*layers)\n\n\nclass Drop(nn.Module):\n    def __init__(self, p):\n        super().__init__()\n        self.p = p\n\n    def forward(self, x):\n        for _ in range(4):\n            x = x * 1.0\n        return x\n'

MODEL = 'import torch\nimport torch.nn as nn\nfrom .layers import ConvBlock, Drop\n\n\nclass Block(nn.Module):\n    def __init__(self, cin, cout, stride):\n        super().__init__()\n        self.body = ConvBlock(cin, cout, stride)\n        self.drop = Drop(0.1)\n\n    def forward(self, x):\n        out = self.body(x)\n        out = self.drop(out)\n        return out\n\n\nclass Net(nn.Module):\n    def __init__(self, widths, num_classes=10):\n        super().__init__()\n        blocks, cin = [], 3\n        for i, w in enumerate(widths):\n            blocks.append(Block(cin, w, 2 if i % 2 else 1))\n            cin = w\n        self.blocks = nn.Sequential(*blocks)\n        self.head = nn.Linear(cin, num_classes)\n\n    def forward(self, x):\n        x = self.blocks(x)\n        x = x.mean((2, 3))\n        x = self.head(x)\n        return x\n\n\ndef net_a(**kw):\n    return Net([8, 16, 24, 32], **kw)\n\n\ndef net_b(**kw):\n    return Net([4, 12, 20, 28, 36], **kw)\n\n\ndef net_c(**kw):\n    return Net([6, 10, 14, 18, 22, 26], **kw)\n'


def _package(tmp_path):
    os.makedirs(tmp_path / "fs")
    for name, text in (("__init__.py", ""), ("layers.py", LAYERS), ("m.py", MODEL)):
        (tmp_path / "fs" / name).write_text(text)
    return tmp_path / "fs" / "m.py"


def _contexts(path, line: int) -> dict:
    r = analyze_source(path.read_text(), str(path))
    return {c["context"].split(":")[0]: c["shape"] for v in r.infer_json()["values"] if v["line"] == line
            for c in v.get("contexts", [])}


def _torch(root, factory: str, x):
    sys.path.insert(0, str(root))
    try:
        for name in [m for m in sys.modules if m == "fs" or m.startswith("fs.")]:
            del sys.modules[name]
        model = getattr(importlib.import_module("fs.m"), factory)(num_classes=7)
        feats = model.blocks(x)
        return list(feats.shape), list(model(x).shape)
    finally:
        sys.path.remove(str(root))


def _evaluated(shape: list, x) -> list:
    return [d if isinstance(d, int) else eval(d, {}, {"x": x, "num_classes": 7}) for d in shape]


def _all_right(tmp_path, path):
    x = torch.randn(2, 3, 19, 13)
    blocks = _contexts(path, MODEL.splitlines().index("        x = self.blocks(x)") + 1)
    head = _contexts(path, MODEL.splitlines().index("        x = self.head(x)") + 1)
    for factory in ("net_a", "net_b", "net_c"):
        want_blocks, want_out = _torch(tmp_path, factory, x)
        assert factory in blocks and _evaluated(blocks[factory], x) == want_blocks, factory
        assert _evaluated(head[factory], x) == want_out, factory


def test_each_factory_builds_its_model_within_a_share_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setattr(costs, "BUILDING_STEPS", 450)  # one factory's constructions, not three's
    _all_right(tmp_path, _package(tmp_path))


def test_each_construction_context_runs_the_imported_layers_within_a_share_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setattr(costs, "IMPORTED_STEPS", 200)  # one model's forward, not three's
    _all_right(tmp_path, _package(tmp_path))


def test_the_file_still_has_a_bound_on_all_its_constructions(tmp_path, monkeypatch):
    # (the factories' sized contexts, run again with their `**kwargs` holding sizes only, have a
    # bound of their own: sized_kwargs.SIZED_STEPS)
    monkeypatch.setattr(costs, "ALL_BUILDING_STEPS", 0)
    monkeypatch.setattr(sized_kwargs, "SIZED_STEPS", 0)
    path = _package(tmp_path)
    assert not _contexts(path, MODEL.splitlines().index("        x = self.head(x)") + 1)
