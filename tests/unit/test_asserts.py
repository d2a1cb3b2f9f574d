"""Assertions on an unannotated parameter constrain it even before its rank is known."""
from shapehint.analysis.api import analyze_source

SRC = '''import torch.nn as nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x):
        assert x.shape[1] == {c}
        return self.conv(x)
'''


def test_assert_on_one_dimension_then_a_clashing_layer_is_an_error():
    r = analyze_source(SRC.format(c=4), "m.py")
    errs = [d for d in r.diagnostics if d.severity == "error"]
    assert [d.line for d in errs] == [11] and errs[0].code == "SH101"
    assert 10 in [rel.line for rel in errs[0].related]


def test_consistent_assert_is_fine():
    r = analyze_source(SRC.format(c=3), "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"]


def test_a_conjunction_of_equalities_pins_each_dimension():
    src = '''import torch.nn as nn


class PatchEmbed(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, 32, kernel_size=16, stride=16)

    def forward(self, x):
        B, C, H, W = x.shape
        assert H == 224 and W == 224
        y = self.proj(x).flatten(2)
        return y
'''
    r = analyze_source(src, "m.py")
    assert {str(v.shape) for v in r.values if v.name == "y"} == {"[B, 32, 196]"}
