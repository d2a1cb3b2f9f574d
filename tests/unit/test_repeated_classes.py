"""A list of classes repeated a count the analysis does not know (`[mixer] * len(depths)` of a
tuple of unknown length, analysis/sequence_arith.py): only a list of Nones, classes or functions
repeats whatever the count (no operand takes one in its `__rmul__`), so each item is the class.
Before, the list was unknown, so was every stage built from its items, and the stack of stages
had no shape at all. The program is our own; its claims are checked against PyTorch on meta."""
import pytest

from shapehint.analysis.api import analyze_source

SRC = '''from typing import Tuple

import torch
import torch.nn as nn


class Stage(nn.Module):
    def __init__(self, cin: int, dim: int, mixer=nn.Identity):
        super().__init__()
        self.down = nn.Conv2d(cin, dim, 3, 2, 1)
        self.mixer = mixer()

    def forward(self, x: torch.Tensor):
        x = self.down(x)
        return self.mixer(x)


class Net(nn.Module):
    def __init__(self, depths: Tuple[int, ...] = (2, 2), dims: Tuple[int, ...] = (16, 32), mixers=nn.ReLU):
        super().__init__()
        if not isinstance(mixers, (list, tuple)):
            mixers = [mixers] * len(depths)
        self.first = mixers[0]()
        stages = []
        prev = 3
        for i in range(len(depths)):
            stages += [Stage(prev, dims[i], mixer=mixers[i])]
            prev = dims[i]
        self.stages = nn.Sequential(*stages)

    def forward(self, x: torch.Tensor):
        assert x.shape[1] == 3
        a = self.first(x)
        y = self.stages(x)
        return a, y
'''


def _shapes():
    r = analyze_source(SRC, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"]
    return {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["function"] == "Net.forward"}


def test_an_item_of_the_repeated_list_is_the_class():
    assert _shapes()["a"] == ["x.shape[0]", 3, "x.shape[2]", "x.shape[3]"]  # nn.ReLU keeps the input


def test_the_stack_of_an_unknown_number_of_stages_keeps_the_batch():
    # one stage or several (their count unknown): only the batch, and the rank the convolutions
    # require, are known
    assert _shapes()["y"] == ["x.shape[0]", "?", "?", "?"]


@pytest.mark.parametrize("depths,dims,want", [((1,), (5,), [2, 5, 4, 4]), ((1, 1), (4, 6), [2, 6, 2, 2]),
                                              ((1, 1, 1), (4, 6, 7), [2, 7, 1, 1])])
def test_the_claims_hold_in_torch(depths, dims, want):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    with torch.device("meta"):
        a, y = ns["Net"](depths, dims)(torch.empty(2, 3, 8, 8))
    assert list(a.shape) == [2, 3, 8, 8] and list(y.shape) == want
