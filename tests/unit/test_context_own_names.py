"""A callee's shape, written in its own names, never keeps a caller's symbol that is merely
spelt like one of its own (analysis/contexts.py `translate`).

`flat(self.proj(x))` runs `flat` with the caller's sizes (`x.shape[2]//4` of the caller's
input). Translated into `flat`'s own names, a size with no own name is `?`; before, the caller's
`x.shape[2]` passed as `flat`'s own `x.shape[2]` (same spelling), and `flat`'s line claimed
`(x.shape[2]//4)*(x.shape[3]//4)` of its own argument: 4 where torch gives 64. The program is
our own; the claim is evaluated against torch."""
import torch

from shapehint.analysis.api import analyze_source

SRC = """\
import torch
from torch import nn


def flat(x):
    y = x.flatten(2)
    return y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, 8, kernel_size=4, stride=4)

    def forward(self, x):
        assert x.shape == (2, 3, 32, 32)
        z = flat(self.proj(x))
        return z
"""


def test_a_callers_symbol_spelt_like_an_own_name_is_not_one():
    r = analyze_source(SRC, "m.py")
    (y,) = [v for v in r.infer_json()["values"] if v["function"] == "flat"]
    ns = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    arg = ns["Net"]().proj(torch.zeros(2, 3, 32, 32))  # flat's own x in the call
    observed = list(ns["flat"](arg).shape)
    assert observed == [2, 8, 64]
    for d, o in zip(y["shape"], observed):
        if d != "?":
            assert (d if isinstance(d, int) else eval(d, {}, {"x": arg})) == o, (y["shape"], observed)
