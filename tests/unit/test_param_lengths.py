"""A constructor's sequence of sizes assumed as long as its default (analysis/param_lengths.py,
flag_defaults.py, devicerun/builders.py).

`stages: Tuple[int, ...] = (2, 3, 4)` builds one dense stage a pass of `enumerate(stages)`: the
class on its own holds a sequence of unknown length there (no stage at all is possible: the
stem's output joins the features'), so the features' channels and sizes are unknown, and the
construction at the defaults keeps sizes symbolic, so it did too. The construction assuming
`len(stages) == 3` (items `stages[0]`, ... symbolic) has every shape exact; each is checked
against torch (meta tensors) for builds of that length, and a build is matched to it only when it
passes a literal of three ints from 1 up (or leaves the default) with every flag at its default."""
import ast

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.param_lengths import param_lengths
from shapehint.devicerun.builders import built_by

from .infer_values import context_shape, value_at

PROGRAM = '''from typing import List, Tuple
import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, in_chs: int, growth: int):
        super().__init__()
        self.conv = nn.Conv2d(in_chs, growth, 3, padding=1)

    def forward(self, xs: List[torch.Tensor]) -> torch.Tensor:
        return self.conv(torch.cat(xs, 1))


class Block(nn.ModuleDict):
    def __init__(self, num_layers: int, in_chs: int, growth: int):
        super().__init__()
        for i in range(num_layers):
            self.add_module("layer%d" % (i + 1), Layer(in_chs + i * growth, growth))

    def forward(self, x):
        feats = [x]
        for name, layer in self.items():
            feats.append(layer(feats))
        return torch.cat(feats, 1)


class Net(nn.Module):
    def __init__(self, growth: int = 8, stages: Tuple[int, ...] = (2, 3, 4), num_classes: int = 10,
                 bias: bool = False):
        super().__init__()
        chs = growth * 2
        self.features = nn.Sequential(nn.Conv2d(3, chs, 3, stride=2, padding=1, bias=bias))
        for i, num_layers in enumerate(stages):
            self.features.add_module("block%d" % i, Block(num_layers, chs, growth))
            chs = chs + num_layers * growth
            if i != len(stages) - 1:
                self.features.add_module("down%d" % i, nn.Conv2d(chs, chs // 2, 3, stride=2, padding=1))
                chs = chs // 2
        self.head = nn.Linear(chs, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = x.mean((2, 3))
        x = self.head(x)
        return x
'''
LABEL = "Net.__init__:29 assuming len(stages) == 3"
LINES = (43, 44, 45)


def _values():
    return analyze_source(PROGRAM, "paramlengths.py").infer_json()["values"]


def _at(values, line):
    return value_at(values, "Net.forward", line, "x", required=True)


def _context(value, label=LABEL):
    return context_shape(value, label)


def _torch_shapes(**build):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "paramlengths.py", "exec"), ns)
    net = ns["Net"](**build).to("meta")
    x = torch.empty(2, 3, 40, 24, device="meta")
    seen = {43: net.features(x)}
    seen[44] = seen[43].mean((2, 3))
    seen[45] = net.head(seen[44])
    return x, seen


@pytest.mark.parametrize("growth, stages", [(8, (2, 3, 4)), (4, (1, 1, 5)), (6, (3, 1, 2))])
def test_the_context_of_the_default_length_is_exact_for_builds_of_that_length(growth, stages):
    values = _values()
    x, seen = _torch_shapes(growth=growth, stages=stages)
    env = {"x": x, "growth": growth, "stages": stages, "num_classes": 10}
    for line in LINES:
        shape = _context(_at(values, line))
        assert shape is not None and "?" not in shape and not any(str(d).startswith("*") for d in shape), shape
        assert [d if isinstance(d, int) else eval(d, dict(env)) for d in shape] == list(seen[line].shape), line


def test_the_join_and_the_defaults_context_keep_the_count_open():
    values = _values()
    assert _at(values, 43)["shape"][1] == "?"  # no stage, or any number of them
    assert _context(_at(values, 43), "Net.__init__:29")[1] == "?"


@pytest.mark.parametrize("build, matched", [
    ("Net(growth=8, stages=(1, 2, 3))", True),
    ("Net(stages=[2, 2, 2], num_classes=5)", True),
    ("Net(4, (1, 1, 1))", True),
    ("Net()", True),  # the default itself
    ("Net(stages=(1, 2))", False),  # another length
    ("Net(stages=(0, 2, 3))", False),  # an empty stage: the context's sizes are at least 1
    ("Net(stages=s)", False),
    ("Net(stages=(1, 2, 3), bias=True)", False),  # a flag off its default
    ("Net(stages=(1, 2, 3), **kw)", False),
])
def test_a_build_is_in_the_context_only_with_a_literal_of_that_length(build, matched):
    assert (LABEL.replace(":29", "") in built_by([build], PROGRAM)) is matched


def _init(src):
    return next(n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.FunctionDef) and n.name == "__init__")


def test_the_sequences_whose_length_a_constructor_reads():
    assert param_lengths(_init("def __init__(self, d=(1, 2), n=3):\n    for i in range(len(d)):\n        pass\n")) \
        == [("d", 2)]
    assert param_lengths(_init("def __init__(self, d=[1, 2, 3]):\n    k = [x for x in zip(d, d)]\n")) == [("d", 3)]
    assert param_lengths(_init("def __init__(self, d=(1, 2)):\n    a = d[0]\n")) == []  # its length unread
    assert param_lengths(_init("def __init__(self, d=(True, False)):\n    len(d)\n")) == []  # not sizes
    assert param_lengths(_init("def __init__(self, d=(1, 'M')):\n    len(d)\n")) == []
    # a fixed-length annotation gives the length already (generic.container_param)
    assert param_lengths(_init("def __init__(self, d: Tuple[int, int] = (1, 2)):\n    len(d)\n")) == []
    assert param_lengths(_init("def __init__(self, d: Tuple[int, ...] = (1, 2)):\n    len(d)\n")) == [("d", 2)]
    # a nested function's loop is its own
    assert param_lengths(_init("def __init__(self, d=(1, 2)):\n    def f():\n        return len(d)\n")) == []


def test_the_device_run_judges_an_assuming_context_only_for_the_builds_in_it():
    from shapehint.devicerun.compare import _judge_built
    cand = {"contexts": [{"context": "Net.__init__:29", "shape": [2, 5]},
                         {"context": "Net.__init__:29 assuming len(stages) == 3", "shape": [2, 7]}]}
    # a build of another length is in the defaults context only: the assumption's shape is not its
    assert _judge_built(cand, [2, 5], {}, frozenset({"Net.__init__"}))[0] == "match"
    assert _judge_built(cand, [2, 7], {}, frozenset({"Net.__init__"}))[0] == "mismatch"
    both = frozenset({"Net.__init__", "Net.__init__ assuming len(stages) == 3"})
    assert _judge_built(cand, [2, 7], {}, both)[0] == "match"
