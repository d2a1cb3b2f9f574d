"""A constructor's required sequence of counts assumed as long as its sequence defaults
(analysis/param_lengths.py `_required_sequences`, flag_defaults.py, first_pass.py `counted`).

`layers: Tuple[int, ...]` has no default: every construction context holds a sequence of unknown
length, so a stage the helper builds per `zip(widths, layers)` item may be missing, and one built
`for b in range(n)` may have no block (its input is then its output): every stage's channels and
sizes joined the input's. The context assuming `len(layers) == 3` (the length of `widths`, whose
length the constructor reads) holds items `layers[i]` from 1 up, as the builds it claims for pass
them, so each stage's first block runs on every path there and every shape is exact; each is
checked against torch (meta tensors). Outside that context nothing changes: a count may be 0."""
import ast

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.param_lengths import param_lengths
from shapehint.devicerun.builders import built_by

from .infer_values import context_shape, value_at

PROGRAM = '''from typing import Optional, Tuple, Type, Union
import torch
from torch import nn


class Plain(nn.Module):
    grow = 1

    def __init__(self, cin: int, planes: int, stride: int = 1, down=None):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, planes, 3, stride=stride, padding=1)
        self.conv2 = nn.Conv2d(planes, planes * self.grow, 3, padding=1)
        self.down = down

    def forward(self, x):
        skip = x
        y = self.conv1(x)
        y = self.conv2(y)
        if self.down is not None:
            skip = self.down(skip)
        y = y + skip
        return y


class Wide(Plain):
    grow = 3


def stages_of(kinds: Tuple[Union[Type[Plain], Type[Wide]], ...], widths, layers, cin):
    out = []
    for i, (kind, planes, n) in enumerate(zip(kinds, widths, layers)):
        stride = 1 if i == 0 else 2
        down = None
        if stride != 1 or cin != planes * kind.grow:
            down = nn.Conv2d(cin, planes * kind.grow, 1, stride=stride)
        blocks = []
        for b in range(n):
            down = down if b == 0 else None
            stride = stride if b == 0 else 1
            blocks.append(kind(cin, planes, stride, down))
            cin = planes * kind.grow
        out.append((f"stage{i + 1}", nn.Sequential(*blocks)))
    return out


class Net(nn.Module):
    def __init__(self, kind: Union[Plain, Wide], layers: Tuple[int, ...], widths: Optional[Tuple[int, ...]] = (4, 8, 16),
                 num_classes: int = 10, bias: bool = False, stem: str = 'flat'):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, stride=2, padding=1, bias=bias) if stem != 'deep' else nn.Sequential(nn.Conv2d(3, 4, 3, stride=2, padding=1), nn.Conv2d(4, 4, 3, padding=1))
        kinds = tuple(kind for _ in range(len(widths)))
        for name, stage in stages_of(kinds, widths, layers, 4):
            self.add_module(name, stage)
        self.head = nn.Linear(widths[-1] * kind.grow, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.stage1(x)
        x = self.stage2(x)
        x = self.stage3(x)
        x = x.mean((2, 3))
        x = self.head(x)
        return x
'''
LABEL = "Net.__init__:47 assuming len(layers) == 3"
DEEP = "Net.__init__:47 assuming stem == 'deep' and len(layers) == 3"  # (a string's literal, and the length)
STAGES = (58, 59, 60)  # `x = self.stageN(x)`


def _values():
    return analyze_source(PROGRAM, "requiredlengths.py").infer_json()["values"]


def _at(values, line):
    return value_at(values, "Net.forward", line, "x", required=True)


def _torch_shapes(kind: str, layers: tuple, **build):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "requiredlengths.py", "exec"), ns)
    net = ns["Net"](ns[kind], layers, **build).to("meta")
    x = torch.empty(2, 3, 37, 22, device="meta")
    seen = {57: net.stem(x)}
    seen[58] = net.stage1(seen[57])
    seen[59] = net.stage2(seen[58])
    seen[60] = net.stage3(seen[59])
    seen[61] = seen[60].mean((2, 3))
    seen[62] = net.head(seen[61])
    return x, seen


class _Kind:
    def __init__(self, grow):
        self.grow = grow


@pytest.mark.parametrize("kind, grow, layers", [("Plain", 1, (1, 1, 1)), ("Wide", 3, (2, 1, 3)),
                                                ("Plain", 1, (3, 2, 1))])
@pytest.mark.parametrize("stem, label", [("flat", LABEL), ("deep", DEEP)])
def test_the_context_of_that_length_is_exact_for_builds_of_that_length(kind, grow, layers, stem, label):
    values = _values()
    x, seen = _torch_shapes(kind, layers, stem=stem)
    env = {"x": x, "kind": _Kind(grow), "layers": layers, "num_classes": 10}
    for line in sorted(seen):
        shape = context_shape(_at(values, line), label)
        assert shape is not None and "?" not in shape and not any(str(d).startswith("*") for d in shape), \
            (line, shape)
        assert [d if isinstance(d, int) else eval(d, dict(env)) for d in shape] == list(seen[line].shape), line


def test_outside_the_context_a_stage_may_be_empty():
    torch = pytest.importorskip("torch")
    values = _values()
    for line in STAGES:  # the join, and the contexts open in the length: a stage of no block is its input
        assert _at(values, line)["shape"][1] == "?"
        assert context_shape(_at(values, line), "Net.__init__:47")[1] == "?"
        assert context_shape(_at(values, line), "Net.__init__:47 assuming stem == 'deep'")[1] == "?"
    ns = {}
    exec(compile(PROGRAM, "requiredlengths.py", "exec"), ns)
    net = ns["Net"](ns["Plain"], (0, 1, 1)).to("meta")  # (what the join allows for: stage1 no block)
    x = net.stem(torch.empty(2, 3, 37, 22, device="meta"))
    assert net.stage1(x).shape[1] == 4


@pytest.mark.parametrize("build, matched", [
    ("Net(Plain, (1, 2, 3))", True),
    ("Net(kind=Wide, layers=[1, 1, 1], num_classes=5)", True),
    ("Net(Plain, (1, 2))", False),  # another length
    ("Net(Plain, (0, 2, 3))", False),  # a stage of no block: the context's counts are at least 1
    ("Net(Plain, layers)", False),
    ("Net(Plain, (1, 2, 3), bias=True)", False),  # a flag off its default
])
def test_a_build_is_in_the_context_only_with_a_literal_of_that_length(build, matched):
    assert (LABEL.replace(":47", "") in built_by([build], PROGRAM)) is matched


@pytest.mark.parametrize("build, matched", [
    ("Net(Plain, (1, 2, 3), stem='deep')", True),
    ("Net(Plain, (1, 2, 3))", False),  # the literal's context only
    ("Net(Plain, (1, 2), stem='deep')", False),
    ("Net(Plain, (0, 2, 3), stem='deep')", False),
    ("Net(Plain, (1, 2, 3), stem='deep', bias=True)", False),
])
def test_a_build_is_in_the_literal_and_length_context_only_passing_both(build, matched):
    assert (DEEP.replace(":47", "") in built_by([build], PROGRAM)) is matched


def _init(src):
    return next(n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.FunctionDef) and n.name == "__init__")


@pytest.mark.parametrize("src, lengths", [
    # the required one first: a build must pass it
    ("def __init__(self, n: Tuple[int, ...], d=(1, 2)):\n    f(n, len(d))\n", [("n", 2)]),
    ("def __init__(self, n: List[int], d=[1, 2, 3]):\n    f(n, len(d))\n", [("n", 3)]),
    ("def __init__(self, *, n: Sequence[int], d=(1, 2)):\n    f(n, len(d))\n", [("n", 2)]),
    # no sequence default whose length is read: no length to assume
    ("def __init__(self, n: Tuple[int, ...], d=(1, 2)):\n    f(n, d[0])\n", []),
    # defaults of two lengths: none
    ("def __init__(self, n: Tuple[int, ...], d=(1, 2), e=(1, 2, 3)):\n    f(n, len(d), len(e))\n",
     [("d", 2)]),
    # not ints of any number, or not read
    ("def __init__(self, n: Tuple[int, int], d=(1, 2)):\n    f(n, len(d))\n", [("d", 2)]),
    ("def __init__(self, n: Tuple[float, ...], d=(1, 2)):\n    f(n, len(d))\n", [("d", 2)]),
    ("def __init__(self, n, d=(1, 2)):\n    f(n, len(d))\n", [("d", 2)]),
    ("def __init__(self, n: Tuple[int, ...], d=(1, 2)):\n    f(len(d))\n", [("d", 2)]),
])
def test_the_required_sequences_a_constructor_is_assumed_to_get(src, lengths):
    assert param_lengths(_init(src)) == lengths
