"""`kwargs.pop(key, default)` of an open `**kwargs` (analysis/dicts.py, `_open_default`): a
class or callable default is taken, as for a keyword parameter the caller's open `**kwargs`
leaves at its default; a number stays unknown (a caller may pass another). The claimed shape is
checked against torch on the meta device."""
import pytest

from shapehint.analysis.api import analyze_source

SRC = '''import torch
from functools import partial
from torch import nn


class Net(nn.Module):
    def __init__(self, norm_layer=None, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.norm = norm_layer(8)

    def forward(self, x):
        y = self.norm(self.conv(x))
        return y


def make(**kwargs):
    norm = kwargs.pop("norm_layer", partial(nn.BatchNorm2d, eps=1e-5))
    width = kwargs.pop("width", 16)
    z = torch.zeros(width)
    return Net(norm_layer=norm, **kwargs)
'''


def _values():
    return {(v["function"], v["name"]): v for v in analyze_source(SRC, "pop.py").infer_json()["values"]}


def test_a_popped_layer_class_default_builds_the_model():
    y = _values()[("Net.forward", "y")]
    assert [c["shape"] for c in y["contexts"]] == [["x.shape[0]", 8, "x.shape[2] - 2", "x.shape[3] - 2"]]
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "pop.py", "exec"), ns)
    out = ns["make"]().to("meta")(torch.empty(2, 3, 9, 11, device="meta"))
    assert list(out.shape) == [2, 8, 7, 9]


def test_a_popped_number_default_is_not_claimed():
    z = _values().get(("make", "z"))
    assert z is None or z["shape"] != [16]
