"""The generic instance a class's methods are analysed with: built by `__init__` with its
defaults, and, when those do not build one (`FractionalMaxPool2d()` raises "requires an
output_size or an output_ratio"), built again with the `None` defaults unknown — the methods of
torch's own FractionalMaxPool2d got a false SH107 from an instance no constructor call builds."""
from shapehint.analysis.api import analyze_source

POOL = '''import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.tensor_type import TensorType


class Pool(nn.Module):
    def __init__(self, kernel_size=2, output_size=None, output_ratio=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.output_size = output_size
        self.output_ratio = output_ratio
        if output_size is None and output_ratio is None:
            raise ValueError("needs an output_size or an output_ratio")
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return F.fractional_max_pool2d(x, self.kernel_size, self.output_size, self.output_ratio)

    def head(self, h: TensorType([3, 5])):
        return self.fc(h)
'''


def _errors(text):
    return [(d.line, d.code) for d in analyze_source(text, "pool.py").diagnostics if d.severity == "error"]


def test_a_class_its_defaults_do_not_build_is_analysed_with_one_a_call_builds():
    line = POOL.splitlines().index("        return self.fc(h)") + 1
    # no error from the refused defaults; the layer built after the check is still there
    assert _errors(POOL) == [(line, "SH101")]


def test_a_class_its_defaults_build_keeps_them():
    text = POOL.replace("output_ratio=None):", "output_ratio=(0.5, 0.5)):")
    line = text.splitlines().index("        return self.fc(h)") + 1
    assert _errors(text) == [(line, "SH101")]
