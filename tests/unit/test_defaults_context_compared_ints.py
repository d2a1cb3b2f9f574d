"""The defaults construction context (analysis/flag_defaults.py) with the ints the constructor
compares fixed (analysis/deciding_ints.py).

`output_stride: int = 16` read by `if reduced >= output_stride:`, and `patch_size: int = 4` that
becomes the stride tested against 2 (`reduced = patch_size`), leave both stages' strides undecided
while they are symbols, so the stages' output sizes are unknown. The construction with the
defaults holds them at their values; `dim` and `num_classes` (compared only with 0) stay symbols,
so a build passing its own sizes is still in the context, and one passing another
`output_stride` is not (devicerun/builders.py). Every shape claimed is checked against torch
(meta tensors)."""
import ast

import pytest

from shapehint.analysis.deciding_ints import deciding_ints
from shapehint.devicerun.builders import built_by

from .test_defaults_context_floats_forwarding import _at, _context, _values
from .test_flag_default_context import _evaluates

PROGRAM = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, dim: int = 8, patch_size: int = 4, output_stride: int = 16, num_classes: int = 10,
                 bias: bool = True):
        super().__init__()
        assert output_stride in (8, 16)
        self.stem = nn.Conv2d(3, dim, patch_size, patch_size, bias=bias)
        reduced = patch_size
        stages = []
        for i in range(2):
            stride = 1 if reduced == 2 else 2
            if reduced >= output_stride:
                stride = 1
            reduced *= stride
            stages.append(nn.Conv2d(dim, dim, 3, stride, 1))
        self.stages = nn.Sequential(*stages)
        self.head = nn.Linear(dim, num_classes) if num_classes > 0 else nn.Identity()

    def forward(self, x):
        x = self.stem(x)
        x = self.stages(x)
        y = self.head(x.mean((2, 3)))
        return y
'''
NET = "Net.__init__:6"
STAGES, HEAD = 24, 25


def _torch(**build):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "comparedints.py", "exec"), ns)
    net = ns["Net"](**build).to("meta")
    x = torch.empty(2, 3, 64, 48, device="meta")
    h = net.stages(net.stem(x))
    return x, h, net.head(h.mean((2, 3)))


def test_torch_the_compared_ints_change_the_sizes():
    assert _torch()[1].shape == (2, 8, 4, 3)
    assert _torch(output_stride=8)[1].shape == (2, 8, 8, 6)
    assert _torch(patch_size=2)[1].shape == (2, 8, 32, 24)


def test_the_compared_ints_are_decided_in_the_context_only():
    values = _values(PROGRAM)
    x, h, y = _torch()
    env = {"x": x, "dim": 8, "num_classes": 10}
    _evaluates(_context(_at(values, "Net.forward", STAGES, "x"), NET), h.shape, env)
    _evaluates(_context(_at(values, "Net.forward", HEAD, "y"), NET), y.shape, env)
    # the sizes stay symbols there, so a build passing its own is judged by them
    assert _context(_at(values, "Net.forward", STAGES, "x"), NET)[1] == "dim"
    assert _context(_at(values, "Net.forward", HEAD, "y"), NET)[1] == "num_classes"
    # the class on its own: either stride (output_stride=8 gives 8, not 4)
    assert _at(values, "Net.forward", STAGES, "x")["shape"][2] == "?"


@pytest.mark.parametrize("build, matched", [
    ("Net()", True),
    ("Net(dim=32, num_classes=100)", True),
    ("Net(output_stride=16)", True),
    ("Net(output_stride=8)", False),
    ("Net(patch_size=2)", False),
    ("Net(8, 4, 8)", False),  # positionally
])
def test_a_build_is_in_the_context_only_with_the_compared_ints_at_their_defaults(build, matched):
    assert ("Net.__init__" in built_by([build], PROGRAM)) is matched


def _deciding(body: str, params="a: int = 2, b: int = 3, n: int = 4") -> dict:
    init = ast.parse(f"def __init__(self, {params}):\n" + "".join("    " + ln + "\n" for ln in body.splitlines()))
    return deciding_ints(init.body[0])


@pytest.mark.parametrize("body, expected", [
    ("if a >= b:\n    pass", {"a": 2, "b": 3}),
    ("c = a * 2\nd = c\nx = 1 if d == 8 else 2", {"a": 2}),  # through the names assigned from it
    ("c = 1\nc *= a\nif c != 4:\n    pass", {"a": 2}),
    ("assert a in (2, 4)", {"a": 2}),  # a choice of values
    ("assert a == b", {}),  # a check of the arguments
    ("if len(x) != n:\n    raise ValueError(n)", {}),
    ("x = y if n > 0 else None", {}),  # with 0: the symbol is at least 1
    ("for i in range(n):\n    if i > 2:\n        pass", {}),  # a loop's target reads no size
    ("self.n = n\nif self.m == 2:\n    pass", {}),  # attributes are no names it binds
    ("h = n if x is None else 2\nif h is None:\n    pass", {}),  # identity
])
def test_which_ints_decide(body, expected):
    assert _deciding(body) == expected


def test_only_ints_from_one_up():
    assert _deciding("if a == b or f == 1.5 or s == 'x' or z == 2:\n    pass",
                     "a: int = 2, b: bool = True, f: float = 1.5, s: str = 'x', z: int = 0") == {"a": 2}
