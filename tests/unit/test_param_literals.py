"""A constructor's string parameter given a literal its `__init__` compares it with
(analysis/param_literals.py, flag_defaults.py, devicerun/builders.py).

The stem's width depends on `'deep' in stem_type`: the class on its own joins both stems (the
channels unknown), and the construction at the defaults (`stem_type=''`) has the plain stem only,
so a build with `stem_type='deep'` matched no context. The context that builds the class with
`stem_type='deep'` (every other flag at its default) has the deep stem's channels exact, and the
`if` on the int it compares (`output_stride`) decided. Every shape it claims is checked against
torch (meta tensors) for the class built that way; a build is matched to it only when it passes
exactly that literal and leaves every other flag at its default."""
import ast

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.param_literals import param_literals
from shapehint.devicerun.builders import built_by

from .infer_values import context_shape, value_at

PROGRAM = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, stem_type: str = '', stem_width: int = 64, output_stride: int = 32,
                 num_classes: int = 10, bias: bool = False):
        super().__init__()
        deep = 'deep' in stem_type
        inplanes = stem_width * 2 if deep else 64
        if deep:
            self.stem = nn.Sequential(
                nn.Conv2d(3, stem_width, 3, stride=2, padding=1, bias=bias),
                nn.ReLU(),
                nn.Conv2d(stem_width, inplanes, 3, stride=1, padding=1, bias=bias))
        else:
            self.stem = nn.Conv2d(3, inplanes, 7, stride=2, padding=3, bias=bias)
        stride = 1 if output_stride <= 16 else 2
        self.down = nn.Conv2d(inplanes, 2 * inplanes, 3, stride=stride, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(2 * inplanes, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.down(x)
        x = self.pool(x).flatten(1)
        x = self.fc(x)
        return x
'''
LABEL = "Net.__init__:6 assuming stem_type == 'deep'"
LINES = (24, 25, 26, 27)


def _values():
    return analyze_source(PROGRAM, "paramliterals.py").infer_json()["values"]


def _at(values, line):
    return value_at(values, "Net.forward", line, "x", required=True)


def _context(value, label=LABEL):
    return context_shape(value, label)


def _torch_shapes(**build):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "paramliterals.py", "exec"), ns)
    net = ns["Net"](**build).to("meta")
    x = torch.empty(2, 3, 40, 24, device="meta")
    seen = {24: net.stem(x)}
    seen[25] = net.down(seen[24])
    seen[26] = net.pool(seen[25]).flatten(1)
    seen[27] = net.fc(seen[26])
    return x, seen, net


def test_the_deep_stem_context_is_exact_where_the_join_is_not():
    values = _values()
    # the class on its own: either stem's width, which the next layer holds (held_sizes.py)
    assert _at(values, 24)["shape"][1] == "self.down.in_channels"
    for build in ({}, {"stem_type": "deep", "stem_width": 16}):
        _, built, net = _torch_shapes(**build)
        assert built[24].shape[1] == net.down.in_channels
    x, seen = _torch_shapes(stem_type="deep", stem_width=16)[:2]
    env = {"x": x, "stem_width": 16, "num_classes": 10}
    for line in LINES:
        shape = _context(_at(values, line))
        assert shape is not None and "?" not in shape and not any(str(d).startswith("*") for d in shape), shape
        assert [d if isinstance(d, int) else eval(d, dict(env)) for d in shape] == list(seen[line].shape), line


def test_the_defaults_context_keeps_the_plain_stem():
    values = _values()
    x, seen = _torch_shapes()[:2]
    env = {"x": x, "stem_width": 64, "num_classes": 10}
    shape = _context(_at(values, 24), "Net.__init__:6")
    assert [d if isinstance(d, int) else eval(d, dict(env)) for d in shape] == list(seen[24].shape)


@pytest.mark.parametrize("build, matched", [
    ("Net(stem_type='deep', stem_width=16)", True),
    ("Net(stem_type='deep', num_classes=5, bias=False)", True),
    ("Net('deep')", True),
    ("Net(stem_type='deep', bias=True)", False),  # another flag off its default
    ("Net(stem_type='deep', output_stride=16)", False),  # an int the constructor compares
    ("Net(stem_type='deep_tiered')", False),  # not a literal the constructor compares with
    ("Net(stem_type=kind)", False),
    ("Net(stem_type='deep', **kw)", False),
    ("Net()", False),  # the defaults' own context
])
def test_a_build_is_in_the_context_only_with_that_literal_and_other_flags_at_defaults(build, matched):
    assert (LABEL.replace(":6", "") in built_by([build], PROGRAM)) is matched


def _init(src):
    return next(n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.FunctionDef) and n.name == "__init__")


def test_the_literals_a_constructor_compares_its_strings_with():
    src = '''class A:
    def __init__(self, kind='a', mode="x", n=3, act='relu'):
        if kind == 'b' or 'deep' in mode:
            pass
        if 'c' != kind and kind == 'a':
            pass
        def inner():
            return act == 'gelu'
        ok = mode in ('p', 'q')
'''
    assert param_literals(_init(src)) == [("kind", "b"), ("mode", "deep")]
    assert param_literals(_init("def __init__(self, n=3):\n    return n == 'a'\n")) == []
    assert param_literals(_init("def __init__(self, p=''):\n    return p == \"it's\" or p == 'a b'\n")) == []
