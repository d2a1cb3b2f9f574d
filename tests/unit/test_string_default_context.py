"""The construction with every string at its default (analysis/flag_defaults.py): a string
default that picks a stem (`if 'deep' in stem:`) or names an activation looked up in a table
decides nothing in the class's own analysis (values.DefaultStrV: callers pass others), so the
stem's channels are either arm's and the table's layer is unknown; the context
`CLASS.__init__:LINE`, the class built with its strings (and flags) at their defaults, decides
them. The program is our own; every shape the context claims is checked against torch for the
class built that way, and the referee's matching of a build to that context
(devicerun/builders.py) is strict: a build that passes a string another value is not in it."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.devicerun.builders import built_by

from .infer_values import context_shape, value_at

from .test_flag_default_context import _evaluates

PROGRAM = '''import torch
from torch import nn

_ACTS = dict(relu=nn.ReLU, gelu=nn.GELU)


class Net(nn.Module):
    def __init__(self, width=16, classes=10, stem='', act='gelu'):
        super().__init__()
        deep = 'deep' in stem
        chs = width * 2 if deep else 64
        if deep:
            self.stem = nn.Sequential(nn.Conv2d(3, width, 3, stride=2, padding=1),
                                      nn.Conv2d(width, chs, 3, padding=1))
        else:
            self.stem = nn.Conv2d(3, chs, 7, stride=2, padding=3)
        self.act = _ACTS[act]()
        self.head = nn.Linear(chs, classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.act(x)
        y = x.mean((2, 3))
        y = self.head(y)
        return y
'''
LABEL = "Net.__init__:8"


def _values(text):
    return analyze_source(text, "strdefaults.py").infer_json()["values"]


def _at(values, line, name):
    return value_at(values, "Net.forward", line, name)


def _context(value, label=LABEL):
    return context_shape(value, label)


def _torch_shapes(**build):
    """Net.forward's values after each line, the class built with `build` (meta tensors)."""
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "strdefaults.py", "exec"), ns)
    net = ns["Net"](**build).to("meta")
    x = torch.empty(2, 3, 40, 24, device="meta")
    seen = {21: net.stem(x)}
    seen[22] = net.act(seen[21])
    seen[23] = seen[22].mean((2, 3))
    seen[24] = net.head(seen[23])
    return x, seen, net


def test_the_strings_default_construction_decides_what_the_join_leaves_open():
    values = _values(PROGRAM)
    # the class on its own: the stem's channels are either arm's, which the head holds (held_sizes.py)
    for line, name in ((21, "x"), (22, "x"), (23, "y")):
        assert _at(values, line, name)["shape"][1] == "self.head.in_features", line
    for build in ({}, {"stem": "deep", "width": 8}):
        _, built, net = _torch_shapes(**build)
        assert built[21].shape[1] == net.head.in_features
    x, seen = _torch_shapes()[:2]
    env = {"x": x, "width": 16, "classes": 10}
    for line, name in ((21, "x"), (22, "x"), (23, "y"), (24, "y")):
        _evaluates(_context(_at(values, line, name)), seen[line].shape, env)
    # the default's stem has 64 channels whatever the width: a context that claimed `2*width`
    # would be wrong for the build below, which is why it is not matched to it
    _, deep, _ = _torch_shapes(stem="deep", width=8)
    assert deep[21].shape[1] == 16 != seen[21].shape[1]


def test_a_string_alone_makes_the_context():
    # (no bool default in the program: the strings are what the context decides)
    assert "=True" not in PROGRAM and "=False" not in PROGRAM
    assert any(_context(v) is not None for v in _values(PROGRAM))
    assert all(_context(v) is None for v in _values(PROGRAM.replace("stem='', act='gelu'", "stem=0, act=1")))


@pytest.mark.parametrize("build, matched", [
    ("Net()", True),
    ("Net(width=32, classes=5)", True),
    ("Net(stem='', act='gelu')", True),
    ("Net(stem='deep')", False),  # another stem: the context says nothing of it
    ("Net(act='relu')", False),
    ("Net(16, 10, 'deep')", False),  # positionally
    ("Net(stem=name)", False),  # not a constant
    ("Net(stem=0)", False),  # not a string
    ("Net(**kw)", False),  # may pass one
])
def test_a_build_is_in_the_context_only_with_every_string_at_its_default(build, matched):
    assert ("Net.__init__" in built_by([build], PROGRAM)) is matched
