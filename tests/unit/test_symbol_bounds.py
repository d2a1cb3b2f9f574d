"""A symbol made while one fact store is in use keeps its lower bound in every store its value
reaches: all the stores of one analysis share the declared bounds (Interp.symbol_lower).
Before, `int(flag)` computed in a layer's `__init__` (a count that may be 0) was taken for at
least 1 in the forward's store, and the conv below was a false error."""
from shapehint.analysis.api import analyze_source

SRC = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class Conv(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        extra = int(cout > 4)  # 0 or 1: nothing here says which
        self.weight = nn.Parameter(torch.randn(cout, cin + extra, 3, 3))

    def forward(self, x):
        return F.conv2d(x, self.weight, padding=1)


class Net(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.conv = Conv(8, width)

    def forward(self, x: torch.Tensor):
        assert x.shape == (2, 8, 16, 16)
        return self.conv(x)  # fine for width <= 4
'''


def test_a_count_made_in_init_may_still_be_zero_in_forward():
    r = analyze_source(SRC, "net.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics


def test_int_of_a_decided_bool_is_its_value():
    r = analyze_source("import torch\nq = torch.zeros(int(False) + 1, int(True) + 1, int(3 > 2))\n", "q.py")
    assert [v["shape"] for v in r.infer_json()["values"] if v["name"] == "q"] == [[1, 2, 1]]
