"""A model class of the analysed file whose `forward` is an imported base's (timm's DeiT: a
distilled head over the library's vision transformer) runs that forward in its construction
context as the model's own, within costs.MODEL_FORWARD_STEPS (costs.model_forward), not as one
imported call within IMPORTED_CALL_STEPS. The library's attention reads a flag its settings module
rebinds through `global` (`set_fast`), undecided past the top-level code (rebound_globals.py), so
both arms run in every block: the forward of 24 blocks ran past one call's 1,500 steps, the
context was cut off before it reached the file's `forward_head`, and the head's lines had no
context shape (timm_deit: 8 right -> 2). The shapes claimed are checked against torch with the
flag at its value and after `set_fast(False)`: the claim holds for both."""
import importlib
import sys

import pytest

from shapehint.analysis.api import analyze_source

SETTINGS = '_FAST = True\n\n\ndef use_fast():\n    return _FAST\n\n\ndef set_fast(enable):\n    global _FAST\n    _FAST = enable\n'
BASE = 'import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom .settings import use_fast\n\n\nclass Attention(nn.Module):\n    def __init__(self, dim, heads=2):\n        super().__init__()\n        self.heads = heads\n        self.qkv = nn.Linear(dim, dim * 3)\n        self.proj = nn.Linear(dim, dim)\n        self.fast = use_fast()\n\n    def forward(self, x):\n        B, N, C = x.shape\n        q, k, v = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4).unbind(0)\n        if self.fast:\n            x = F.scaled_dot_product_attention(q, k, v)\n        else:\n            attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)\n            x = attn @ v\n        return self.proj(x.transpose(1, 2).reshape(B, N, C))\n\n\nclass Encoder(nn.Module):\n    def __init__(self, dim=16, depth=4, num_classes=10):\n        super().__init__()\n        self.embed = nn.Linear(8, dim)\n        self.blocks = nn.Sequential(*[Attention(dim) for _ in range(depth)])\n        self.norm = nn.LayerNorm(dim)\n        self.head = nn.Linear(dim, num_classes)\n\n    def forward_features(self, x):\n        x = self.embed(x)\n        x = self.blocks(x)\n        return self.norm(x)\n\n    def forward_head(self, x):\n        return self.head(x[:, 0])\n\n    def forward(self, x):\n        x = self.forward_features(x)\n        return self.forward_head(x)\n'
MODEL = 'import torch\nimport torch.nn as nn\nfrom .base import Encoder\n\n\nclass Distilled(Encoder):\n    def __init__(self, dim=16, num_classes=10, **kwargs):\n        super().__init__(dim=dim, num_classes=num_classes, **kwargs)\n        self.head_dist = nn.Linear(dim, num_classes)\n\n    def forward_head(self, x):\n        x, x_dist = x[:, 0], x[:, 1]\n        x = self.head(x)\n        x_dist = self.head_dist(x_dist)\n        return (x + x_dist) / 2\n\n\ndef distilled(**kw):\n    return Distilled(dim=24, depth=24, num_classes=7, **kw)\n'


def _package(tmp_path):
    (tmp_path / "pk").mkdir()
    for name, text in (("__init__.py", ""), ("settings.py", SETTINGS), ("base.py", BASE), ("m.py", MODEL)):
        (tmp_path / "pk" / name).write_text(text)
    return tmp_path / "pk" / "m.py"


def _line(text: str) -> int:
    return MODEL.splitlines().index(text) + 1


HEAD = {_line("        x, x_dist = x[:, 0], x[:, 1]"): ("x", "x_dist"), _line("        x = self.head(x)"): ("x",),
        _line("        x_dist = self.head_dist(x_dist)"): ("x_dist",)}


def _claims(path) -> dict:
    values = analyze_source(path.read_text(), str(path)).infer_json()["values"]
    return {(v["line"], v["name"]): {c["context"]: c["shape"] for c in v.get("contexts", [])}
            for v in values if v["function"] == "Distilled.forward_head"}


def _torch(root, fast: bool) -> dict:
    """The head's values on the features of a [2, 5, 8] input, and those features (`forward_head`'s
    own input, whose names the claims are in)."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(root))
    try:
        for name in [m for m in sys.modules if m == "pk" or m.startswith("pk.")]:
            del sys.modules[name]
        importlib.import_module("pk.settings").set_fast(fast)
        model = importlib.import_module("pk.m").distilled()
        with torch.device("meta"):
            model = model.to("meta")
            feats = model.forward_features(torch.empty(2, 5, 8))
            x, x_dist = feats[:, 0], feats[:, 1]
            seen = {("x", 0): x, ("x_dist", 0): x_dist, ("x", 1): model.head(x), ("x_dist", 2): model.head_dist(x_dist)}
        return feats, {k: list(v.shape) for k, v in seen.items()}
    finally:
        sys.path.remove(str(root))


def _evaluated(shape: list, feats) -> list:
    return [d if isinstance(d, int) else eval(d, {}, {"x": feats}) for d in shape]


def test_the_file_s_head_is_reached_in_the_construction_context(tmp_path):
    path = _package(tmp_path)
    claims = _claims(path)
    lines = sorted(HEAD)
    for fast in (True, False):
        feats, want = _torch(tmp_path, fast)
        for i, line in enumerate(lines):
            for name in HEAD[line]:
                contexts = claims.get((line, name), {})
                assert "distilled:%d" % _line("    return Distilled(dim=24, depth=24, num_classes=7, **kw)") in contexts, \
                    (line, name, contexts)  # (main: no context)
                for shape in contexts.values():
                    assert _evaluated(shape, feats) == want[(name, i)], (fast, line, name, shape)
