"""`fmt is Format.NHWC` of a `str` enum member (analysis/enums.py `identical`): a member is a
singleton, so the value `Format('NHWC')` gave and the attribute it was read from are one object,
and strings of different values never are. A helper that picks the spatial axes of a layout by
`is` (timm's pooling heads do) gave a join of (2, 3) and (1, 2) and a mean over it had no
shape. Two equal strings that are no member, and a parameter's string default, stay undecided.
The program is our own; the shapes are checked against torch."""
import torch

from .test_int_not_none import inferred_and_run

SRC = """\
from enum import Enum

import torch
from torch import nn


class Format(str, Enum):
    NCHW = 'NCHW'
    NHWC = 'NHWC'
    NLC = 'NLC'


def spatial(fmt):
    fmt = Format(fmt)
    if fmt is Format.NLC:
        dim = (1,)
    elif fmt is Format.NHWC:
        dim = (1, 2)
    else:
        dim = (2, 3)
    return dim


class Pool(nn.Module):
    def __init__(self, fmt: str = 'NCHW'):
        super().__init__()
        self.dim = spatial(fmt)
        self.wide = 3 if fmt is 'NCHW' else 4

    def forward(self, x):
        return x.mean(self.dim)


class Net(nn.Module):
    def __init__(self, c: int = 8):
        super().__init__()
        self.last = Pool('NHWC')
        self.first = Pool('NCHW')
        self.fc = nn.Linear(c, 10)

    def forward(self, x, t):
        b, h, w, c = x.shape
        b2, c2, h2, w2 = t.shape
        y = self.fc(self.last(x))
        z = self.first(t)
        s = ''.join(['NH', 'WC'])
        u = torch.zeros(3 if s is Format.NHWC.value else 4)
        w = torch.zeros(self.first.wide)
        return y, z, u, w
"""


def test_identity_with_a_member_is_decided():
    got, ns = inferred_and_run(SRC, "Net.forward")
    x, t = torch.zeros(2, 5, 6, 8), torch.zeros(2, 8, 5, 6)
    y, z, _, _ = ns["Net"](c=8)(x, t)
    env = {"x": x, "t": t, "c": 8, "b": 2, "b2": 2, "c2": 8}
    for name, v in (("y", y), ("z", z)):
        shape = got[name]["shape"]
        assert "?" not in str(shape), (name, shape)
        assert [d if isinstance(d, int) else eval(d, {}, env) for d in shape] == list(v.shape), (name, shape)
    assert list(y.shape) == [2, 10] and list(z.shape) == [2, 8]


def test_identity_of_equal_strings_that_are_no_member_is_undecided():
    got, _ = inferred_and_run(SRC, "Net.forward")
    assert got["u"]["shape"] == ["?"], got["u"]
    # a string default callers may replace decides nothing either
    assert got["w"]["shape"] in (["?"], None) or got["w"]["shape"][0] not in (3, 4), got["w"]
