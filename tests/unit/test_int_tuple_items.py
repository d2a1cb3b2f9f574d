"""The items of a constructor parameter hinted `Tuple[int, int]` are ints (generic.py), as a
parameter hinted `int` is: a helper's `isinstance(dilation, (tuple, list))` on one of them is
decided, so the padding it computes (timm's `get_padding`-like helpers) is an int and the conv's
output has a shape. Before, `dilation[0]` was an opaque value of any kind, the helper's two
arms joined to an unknown padding, and every shape after the conv was lost. Each shape is
checked against torch running the module (meta tensors)."""
import pytest
import torch

from .program_runs import infer
from .shape_eval import evaluated, run_program

PROGRAM = """from typing import Tuple

import torch
import torch.nn as nn


def pad_of(kernel_size, stride=1, dilation=1):
    if isinstance(dilation, (tuple, list)):
        return [pad_of(kernel_size, stride, d) for d in dilation]
    return ((stride - 1) + dilation * (kernel_size - 1)) // 2


class Block(nn.Module):
    def __init__(self, c: int, stride: int, dilation: Tuple[int, int] = (1, 1)):
        super().__init__()
        self.conv = nn.Conv2d(c, 2 * c, 3, stride=stride, padding=pad_of(3, stride, dilation[0]),
                              dilation=dilation[0])

    def forward(self, x):
        y = self.conv(x)
        return y
"""


@pytest.fixture(scope="module")
def inferred(tmp_path_factory):
    out = infer(tmp_path_factory.mktemp("int_tuple_items"), PROGRAM)
    return {(v["function"], v["line"], v["name"]): v["shape"] for v in out["values"]}


@pytest.mark.parametrize("c,stride,dilation", [(4, 1, (1, 1)), (4, 2, (1, 1)), (3, 2, (2, 2)), (5, 3, (3, 1))])
def test_a_tuple_of_ints_item_decides_an_isinstance_test(inferred, c, stride, dilation):
    y = inferred[("Block.forward", 20, "y")]
    m = run_program(PROGRAM)["Block"](c, stride, dilation).to("meta")
    x = torch.empty(2, c, 13, 17, device="meta")
    env = {"x": x, "c": c, "stride": stride, "dilation": dilation}
    assert None not in evaluated(y, env)
    assert evaluated(y, env) == list(m(x).shape)
