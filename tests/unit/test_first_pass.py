"""The first pass of a loop over a range of unknown length, run on its own where the body
compares the loop's name with the range's start (analysis/first_pass.py): a stage whose first
block takes the stride and the shortcut (`stride if b == 0 else 1`) and whose other blocks keep
the resolution. Each claimed shape is checked against torch on the meta device."""
import ast
import types

import pytest

from shapehint.analysis import first_pass
from shapehint.analysis.api import analyze_source

SRC = '''import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, cin, cout, stride=1, down=None):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.down = down

    def forward(self, x):
        shortcut = x
        y = self.conv1(x)
        y = self.conv2(y)
        if self.down is not None:
            shortcut = self.down(shortcut)
        y = y + shortcut
        return y


def make_stage(cin, c, n, stride):
    down = nn.Conv2d(cin, c, 1, stride=stride)
    blocks = []
    for b in range(n):
        down = down if b == 0 else None
        stride = stride if b == 0 else 1
        blocks.append(Block(cin, c, stride, down))
        cin = c
    return nn.Sequential(*blocks)


class Net(nn.Module):
    def __init__(self, n1: int, n2: int):
        super().__init__()
        self.s1 = make_stage(4, 8, n1, 1)
        self.s2 = make_stage(8, 16, n2, 2)

    def forward(self, x: torch.Tensor):
        x = self.s1(x)
        x = self.s2(x)
        return x
'''
CONV1 = 14  # `y = self.conv1(x)`
STAGE2 = 41  # `x = self.s2(x)`


def _contexts(line):
    for v in analyze_source(SRC, "stage.py").infer_json()["values"]:
        if v["line"] == line and v["name"] == "y":
            return [c["shape"] for c in v.get("contexts", []) if c["context"] == f"Net.forward:{STAGE2}"]
    return []


def _observed(n1, n2, h):
    """The model's input shape, and the conv1 output shape of each block of the second stage, run
    on meta tensors."""
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "stage.py", "exec"), ns)
    net = ns["Net"](n1, n2).to("meta")
    seen = []
    for blk in net.s2:
        blk.conv1.register_forward_hook(lambda m, a, out: seen.append(tuple(out.shape)))
    x = torch.empty(2, 4, h, h + 3, device="meta")
    net(x)
    return tuple(x.shape), seen


def _eval(dims, x_shape):
    env = {"x": types.SimpleNamespace(shape=x_shape)}
    return tuple(d if isinstance(d, int) else eval(d, {}, env) for d in dims)


def test_the_first_block_keeps_its_own_stride():
    # in the caller's names (Net.forward's x): the second stage's first block strides by 2
    first = ["x.shape[0]", 16, "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]
    assert first in _contexts(CONV1)
    for n1, n2, h in ((1, 1, 17), (2, 3, 16), (3, 2, 9)):
        x, seen = _observed(n1, n2, h)
        assert _eval(first, x) == seen[0]


def test_without_the_first_pass_the_stride_is_a_join(monkeypatch):
    monkeypatch.setattr(first_pass, "peels", lambda it, st: False)
    got = _contexts(CONV1)
    assert ["x.shape[0]", 16, "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"] not in got


def _loop(src):
    return ast.parse(src).body[0]


@pytest.mark.parametrize("body, peeled", [
    ("s = 2 if i == 0 else 1", True),
    ("s = 1 if 0 != i else 2", True),
    ("s = 2 if i > 0 else 1", True),
    ("s = 2 if i == 1 else 1", False),  # not the range's start
    ("s = i * 2", False),
    ("s = 2 if j == 0 else 1", False),
])
def test_which_loops_are_peeled(body, peeled):
    st = _loop(f"for i in range(n):\n    {body}\n")
    assert first_pass._compares(st.body, "i", 0) is peeled


@pytest.mark.parametrize("body, registers", [
    ("blocks.append(Block(c if i == 0 else d))", False),
    ("self.add_module(f'b{i}', Block(c if i == 0 else d))", True),
    ("self.cur = d if i == 0 else c", True),
    ("setattr(self, f'b{i}', Block(c if i == 0 else d))", True),
])
def test_a_body_that_registers_modules_is_not_peeled(body, registers):
    # (a container subclass registering a block a pass under names not known is those blocks
    # stacked: tests/unit/test_stage_of_unknown_depth.py)
    assert first_pass._registers(_loop(f"for i in range(n):\n    {body}\n").body) is registers


def test_a_stage_that_may_be_empty_claims_nothing_it_may_not_have():
    torch = pytest.importorskip("torch")
    shapes = {v["line"]: v["shape"] for v in analyze_source(SRC, "stage.py").infer_json()["values"]
              if v["function"] == "Net.forward" and v["name"] == "x"}
    assert shapes[STAGE2][1] == "?"  # 16 channels, or its input's 8 where the stage has no block
    ns = {}
    exec(compile(SRC, "stage.py", "exec"), ns)
    for n1, n2 in ((1, 0), (1, 2), (2, 1), (3, 0)):  # (the second stage needs the first's 8 channels)
        net = ns["Net"](n1, n2).to("meta")
        x = torch.empty(2, 4, 11, 8, device="meta")
        a = net.s1(x)
        for line, out in ((STAGE2 - 1, a), (STAGE2, net.s2(a))):
            dims = shapes[line]
            assert len(dims) == out.dim()
            for d, got in zip(dims, out.shape):
                assert d == "?" or _eval([d], tuple(x.shape)) == (got,)

