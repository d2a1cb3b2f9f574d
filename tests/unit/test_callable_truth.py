"""A callable is truthy (compare.truth): a `functools.partial`, a bound method and a builtin
function have no `__bool__`, so `rd_round_fn = rd_round_fn or round` given a partial keeps the
partial, and the size it computes is known; so is a torch layer class (`norm_layer or
nn.BatchNorm2d`). Checked against torch running the same program."""
import torch

from .program_runs import infer
from .shape_eval import run_program

PROGRAM = """from functools import partial

import torch
import torch.nn as nn


def divisible(v, divisor=8):
    return max(divisor, int(v + divisor / 2) // divisor * divisor)


class Squeeze(nn.Module):
    def __init__(self, in_chs: int, rd_ratio: float = 0.25, rd_round_fn=None):
        super().__init__()
        rd_round_fn = rd_round_fn or round
        rd = rd_round_fn(in_chs * rd_ratio)
        self.reduce = nn.Conv2d(in_chs, rd, 1)

    def forward(self, x):
        return self.reduce(x)


def given(x):
    y = Squeeze(40, rd_round_fn=partial(divisible, divisor=4))(x)
    return y


class Sizes:
    def double(self, v):
        return 2 * v


def method(x):
    pick = Sizes().double or abs
    n = torch.zeros(pick(5))
    return n


def builtin(x):
    fn = None or max
    m = torch.zeros(fn(2, 6))
    return m


def run(x):
    return given(x), method(x), builtin(x)
"""


def test_a_partial_or_a_fallback_is_the_partial(tmp_path):
    x = torch.empty(2, 40, 4, 4, device="meta")
    y, n, m = [list(t.shape) for t in run_program(PROGRAM)["run"](x)]
    assert (y[1], n, m) == (12, [10], [6])  # (the partial's 12, not round's 10)
    vals = {(v["function"], v["name"]): v["shape"] for v in infer(tmp_path, PROGRAM)["values"]}
    assert vals[("given", "y")] == ["x.shape[0]", y[1], "x.shape[2]", "x.shape[3]"]
    assert vals[("method", "n")] == n
    assert vals[("builtin", "m")] == m


LAYER_PROGRAM = """import torch
import torch.nn as nn

_WIDTH = {"batchnorm2d": 1, "instancenorm2d": 2}


def norm_conv(c: int, norm_layer=None):
    norm_layer = norm_layer or nn.BatchNorm2d
    mult = _WIDTH[norm_layer.__name__.lower()]
    return nn.Sequential(nn.Conv2d(c, c * mult, 1), norm_layer(c * mult))


def given(x):
    y = norm_conv(8, norm_layer=nn.InstanceNorm2d)(x)
    return y


def run(x):
    return given(x)
"""


def test_a_torch_layer_class_or_a_fallback_is_that_class(tmp_path):
    # (a torch layer class has no `__bool__`: `norm_layer or nn.BatchNorm2d` given one is it,
    # whose name reads; undecided, the join of two classes had no `__name__`)
    x = torch.empty(2, 8, 4, 4, device="meta")
    y = list(run_program(LAYER_PROGRAM)["run"](x).shape)
    assert y == [2, 16, 4, 4]
    vals = {(v["function"], v["name"]): v["shape"] for v in infer(tmp_path, LAYER_PROGRAM)["values"]}
    assert vals[("given", "y")] == ["x.shape[0]", y[1], "x.shape[2]", "x.shape[3]"]
