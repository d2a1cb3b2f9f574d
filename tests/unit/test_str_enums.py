"""A `str` enum called with one of its values is that member (analysis/enums.py): a patch
embedding that keeps its output layout as `Format(output_fmt)` and picks it by comparing with
the members. Before, `Format('NHWC')` was an opaque instance, every comparison undecided, and
the layouts' ranks joined to nothing. The program is our own; the shapes are checked against
torch."""
import torch

from .test_int_not_none import inferred_and_run

SRC = """\
from enum import Enum
from typing import Optional

import torch
from torch import nn


class Format(str, Enum):
    NCHW = 'NCHW'
    NHWC = 'NHWC'
    NLC = 'NLC'


def to_layout(x: torch.Tensor, fmt: Format):
    if fmt == Format.NHWC:
        x = x.permute(0, 2, 3, 1)
    elif fmt == Format.NLC:
        x = x.flatten(2).transpose(1, 2)
    return x


class Embed(nn.Module):
    def __init__(self, dim: int = 8, flatten: bool = True, output_fmt: Optional[str] = None):
        super().__init__()
        if output_fmt is not None:
            self.flatten = False
            self.output_fmt = Format(output_fmt)
        else:
            self.flatten = flatten
            self.output_fmt = Format.NCHW
        self.proj = nn.Conv2d(3, dim, kernel_size=4, stride=4)

    def forward(self, x):
        x = self.proj(x)
        if self.flatten:
            x = x.flatten(2).transpose(1, 2)
        elif self.output_fmt != Format.NCHW:
            x = to_layout(x, self.output_fmt)
        return x


class Net(nn.Module):
    def __init__(self, dim: int = 8, fmt: str = 'NHWC'):
        super().__init__()
        self.last = Embed(dim=dim, output_fmt='NHWC')
        self.tokens = Embed(dim=dim, output_fmt='NLC')

    def forward(self, x):
        y = self.last(x)
        z = self.tokens(x)
        return y, z
"""


def test_a_str_enum_called_with_a_value_is_that_member():
    got, ns = inferred_and_run(SRC, "Net.forward")
    x = torch.zeros(2, 3, 32, 16)
    y, z = ns["Net"](dim=5)(x)
    assert ns["Format"]("NHWC") == "NHWC"  # (what the analysis relies on: a member equals its value)
    for name, t in (("y", y), ("z", z)):
        shape = got[name]["shape"]
        assert "?" not in str(shape), (name, shape)
        assert [d if isinstance(d, int) else eval(d, {}, {"x": x, "dim": 5}) for d in shape] == list(t.shape)
