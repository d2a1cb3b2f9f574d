"""A call of a layer that is None on some paths (maybe_none.callee): calling None raises, so
every path past the call called the layer. `self.bn_dw` is built in the same arm as
`self.conv_dw` and called behind the test of `conv_dw` only; before, its call was unknown, and
so was every shape after the `if`. Each shape is checked against torch running the module
(meta tensors) for both arms."""
import pytest
import torch

from .program_runs import infer
from .shape_eval import evaluated, run_program

PROGRAM = """import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, c: int, stride: int = 1):
        super().__init__()
        if stride > 1:
            self.conv_dw = nn.Conv2d(c, c, 3, stride=stride, padding=1, groups=c)
            self.bn_dw = nn.BatchNorm2d(c)
        else:
            self.conv_dw = None
            self.bn_dw = None
        self.proj = nn.Conv2d(c, 2 * c, 1)

    def forward(self, x):
        if self.conv_dw is not None:
            x = self.conv_dw(x)
            x = self.bn_dw(x)
        y = self.proj(x)
        return y


def unguarded(x, use: bool):
    bn = nn.BatchNorm2d(4) if use else None
    y = bn(x)
    return y
"""


def _values(out):
    return {(v["function"], v["line"], v["name"]): v["shape"] for v in out["values"]}


@pytest.fixture(scope="module")
def inferred(tmp_path_factory):
    return _values(infer(tmp_path_factory.mktemp("maybe_none_calls"), PROGRAM))


@pytest.mark.parametrize("c,stride", [(8, 1), (8, 2), (6, 3)])
def test_the_layer_called_behind_another_attributes_test(inferred, c, stride):
    bn = inferred[("Block.forward", 19, "x")]
    y = inferred[("Block.forward", 20, "y")]
    m = run_program(PROGRAM)["Block"](c, stride).to("meta")
    x = torch.empty(2, c, 11, 11, device="meta")
    env = {"x": x, "c": c, "stride": stride}
    if m.conv_dw is not None:
        assert evaluated(bn, env) == list(m.bn_dw(m.conv_dw(x)).shape)
    assert len(y) == 4 and evaluated(y, env)[:2] == list(m(x).shape)[:2]  # (H, W: one arm's or the other's)


def test_a_call_past_which_the_layer_was_there(inferred):
    y = inferred[("unguarded", 26, "y")]
    x = torch.randn(2, 4, 5, 5)
    assert evaluated(y, {"x": x}) == list(run_program(PROGRAM)["unguarded"](x, True).shape)
    with pytest.raises(TypeError):  # (the other path does not get past the call)
        run_program(PROGRAM)["unguarded"](x, False)
