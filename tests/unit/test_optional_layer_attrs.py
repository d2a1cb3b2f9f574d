"""A torch layer built only under an undecided condition (`if self.stride > 1:` /
`nn.Conv2d(...) if se_ratio > 0 else None` with a float default) and read behind `if
self.conv_dw is not None:` (maybe_none.py): the attribute is the layer or None, and the arm of
the `None` test reads the layer, so its line has a shape and the join after it keeps the rank;
before, the join of a layer and None was unknown and so was every shape past the `if`. Each
shape is checked against torch running the same module (meta tensors) for both arms."""
import pytest
import torch

from .program_runs import infer
from .shape_eval import evaluated, run_program

PROGRAM = """import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, mid_chs: int, stride: int = 1, se_ratio: float = 0.):
        super().__init__()
        self.stride = stride
        if self.stride > 1:
            self.conv_dw = nn.Conv2d(mid_chs, mid_chs, 3, stride=stride, padding=1, groups=mid_chs)
        else:
            self.conv_dw = None
        self.se = nn.Conv2d(mid_chs, mid_chs, 1) if se_ratio > 0. else None
        self.proj = nn.Conv2d(mid_chs, 2 * mid_chs, 1)

    def forward(self, x):
        if self.conv_dw is not None:
            x = self.conv_dw(x)
        if self.se is not None:
            s = self.se(x)
            x = x * s.sigmoid()
        y = self.proj(x)
        return y
"""


def _values(out):
    return {(v["function"], v["line"], v["name"]): v["shape"] for v in out["values"]}


@pytest.mark.parametrize("mid_chs,stride,se_ratio", [(8, 1, 0.), (8, 2, 0.25), (6, 3, 0.5), (4, 1, 0.25)])
def test_the_arm_of_a_none_test_reads_the_layer(tmp_path, mid_chs, stride, se_ratio):
    vals = _values(infer(tmp_path, PROGRAM))
    conv_dw = vals[("Block.forward", 18, "x")]
    se = vals[("Block.forward", 20, "s")]
    y = vals[("Block.forward", 22, "y")]
    m = run_program(PROGRAM)["Block"](mid_chs, stride, se_ratio).to("meta")
    x = torch.empty(2, mid_chs, 11, 11, device="meta")
    env = {"x": x, "mid_chs": mid_chs, "stride": stride}
    if m.conv_dw is not None:
        assert evaluated(conv_dw, env) == list(m.conv_dw(x).shape)
    after = m.conv_dw(x) if m.conv_dw is not None else x
    if m.se is not None:
        assert [d for d in evaluated(se, env) if d is not None] == [d for d, e in zip(m.se(after).shape, se) if e != "?"]
        assert len(se) == 4
    out = m(x)
    assert len(y) == 4 and evaluated(y, env)[:2] == list(out.shape)[:2]  # (the spatial size: one arm's or the other's)
