"""`a or b` / `a and b` have Python's value semantics: `hidden_features or in_features` is an
int (timm's Mlp), never a bool that would then be read as a size of 1."""
from shapehint.analysis.api import analyze_source

MLP = '''import torch
import torch.nn as nn


class Mlp(nn.Module):
    def __init__(self, in_features, hidden_features=None, out_features=None):
        super().__init__()
        out_features = out_features or in_features
        hidden_features = hidden_features or in_features
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.fc2 = nn.Linear(hidden_features, out_features)

    def forward(self, x):
        h = self.fc1(x)
        return self.fc2(h)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = Mlp(64, {hidden})

    def forward(self, x):
        B, C = x.shape
        y = self.mlp(x)
        return y
'''


def _shape(r, line, name):
    return [str(v.shape) for v in r.values if v.span.line == line and v.name == name]


def test_or_picks_the_default_when_the_first_operand_is_none():
    r = analyze_source(MLP.format(hidden="None"), "m.py")
    # (its own analysis gives `[*x, in_features]`; its one call fixes the segment: segment_fill.py)
    assert _shape(r, 14, "h") == ["[x.shape[0], in_features]"]
    assert _shape(r, 25, "y") == ["[B, 64]"]
    h = [v for v in r.values if v.span.line == 14 and v.name == "h"][0]
    # the context in the calling entry's names (Net.forward's `B, C = x.shape`)
    assert [str(s) for _, s in h.contexts] == ["[B, 64]"]


def test_or_keeps_a_given_value():
    r = analyze_source(MLP.format(hidden="256"), "m.py")
    h = [v for v in r.values if v.span.line == 14 and v.name == "h"][0]
    assert [str(s) for _, s in h.contexts] == ["[B, 256]"]
    assert _shape(r, 25, "y") == ["[B, 64]"]


def test_and_returns_the_first_false_operand_or_the_last():
    src = '''import torch


def f(x, n: int):
    B, C = x.shape
    k = 0 and C
    m = 3 and C
    y = x[:, :m]
    z = x.new_zeros(k + 1, C)
    return y, z
'''
    r = analyze_source(src, "m.py")
    assert _shape(r, 8, "y") == ["[B, C]"]
    assert _shape(r, 9, "z") == ["[1, C]"]


def test_and_with_an_operand_known_false_is_false_whatever_the_others_are():
    """MONAI's DynUNet: `if self.training and self.deep_supervision:` with the flag False is never
    taken, though `self.training` is unknown (its body indexed placeholder tensors)."""
    src = ("import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n"
           "    def __init__(self, deep_supervision: bool = False):\n        super().__init__()\n"
           "        self.deep_supervision = deep_supervision\n        self.heads = [torch.rand(1)]\n\n"
           "    def forward(self, x):\n        if self.training and self.deep_supervision:\n"
           "            return torch.nn.functional.interpolate(self.heads[0], x.shape[2:])\n"
           "        if self.training or self.deep_supervision:\n            y = torch.zeros(3)\n"
           "        return x\n")
    r = analyze_source(src, "m.py")
    assert [d for d in r.diagnostics if d.severity == "error"] == []
    assert [v for v in r.values if v.name == "y"]  # `or` with a false operand stays undecided
