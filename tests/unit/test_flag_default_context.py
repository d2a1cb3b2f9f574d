"""The construction with every flag at its default (analysis/flag_defaults.py): a bool
constructor flag that decides a layout (here through the arguments a part is built with) joins
both layouts in the class's own analysis, so the rank is lost after it; the context
`CLASS.__init__:LINE`, the class built with its flags at their defaults, keeps the default's
layout exact. The program is our own; every shape the context claims is checked against torch
for the class built that way, and the referee's matching of a build to that context
(devicerun/builders.py) is strict: a build that passes a flag another value, or may (`**kw`),
is not in it."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.devicerun.builders import built_by

from .infer_values import context_shape, value_at

PROGRAM = '''import torch
from torch import nn


class Embed(nn.Module):
    def __init__(self, img_size=32, patch=8, dim=16, flatten=True, output_fmt=None):
        super().__init__()
        self.flatten = flatten if output_fmt is None else False
        self.channels_last = output_fmt is not None
        self.proj = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)

    def forward(self, x):
        x = self.proj(x)
        if self.flatten:
            x = x.flatten(2).transpose(1, 2)
        elif self.channels_last:
            x = x.permute(0, 2, 3, 1)
        return x


class Net(nn.Module):
    def __init__(self, img_size=32, patch=8, dim=16, classes=10, class_token=True, dynamic=False):
        super().__init__()
        args = {}
        if dynamic:
            args.update(output_fmt='NHWC')
        self.embed = Embed(img_size, patch, dim, **args)
        self.dynamic = dynamic
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim)) if class_token else None
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.embed(x)
        if self.dynamic:
            x = x.flatten(1, 2)
        if self.cls_token is not None:
            x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)
        y = x.mean(1)
        y = self.head(y)
        return y
'''
NO_FLAGS = PROGRAM.replace("classes=10, class_token=True, dynamic=False", "classes=10, class_token=1, dynamic=0")
LABEL = "Net.__init__:22"


def _values(text):
    return analyze_source(text, "flagdefaults.py").infer_json()["values"]


def _at(values, line, name="x"):
    return value_at(values, "Net.forward", line, name, required=True)


def _context(value, label=LABEL):
    return context_shape(value, label)


def _torch_shapes(**build):
    """Net.forward's x after each line, the class built with `build` (meta tensors)."""
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "flagdefaults.py", "exec"), ns)
    net = ns["Net"](**build).to("meta")
    x = torch.empty(2, 3, 40, 24, device="meta")
    seen = {33: net.embed(x)}
    y = seen[33]
    if net.dynamic:
        y = y.flatten(1, 2)
    if net.cls_token is not None:
        y = torch.cat([net.cls_token.expand(y.shape[0], -1, -1), y], dim=1)
    seen[37] = y
    seen[38] = y.mean(1)
    seen[39] = net.head(seen[38])
    return x, seen


def _evaluates(shape, got, env):
    assert shape is not None and "?" not in shape and not any(str(d).startswith("*") for d in shape), shape
    assert [d if isinstance(d, int) else eval(d, dict(env)) for d in shape] == list(got)


def test_the_flags_default_construction_keeps_the_layout_the_join_loses():
    values = _values(PROGRAM)
    # the class on its own: either layout, so no rank (as before)
    assert any(str(d).startswith("*") for d in _at(values, 33)["shape"])
    x, seen = _torch_shapes()
    env = {"x": x, "patch": 8, "dim": 16, "classes": 10}
    for line, name in ((33, "x"), (37, "x"), (38, "y"), (39, "y")):
        _evaluates(_context(_at(values, line, name)), seen[line].shape, env)


def test_no_such_context_without_a_flag():
    values = _values(NO_FLAGS)
    assert all(_context(v) is None for v in values)


@pytest.mark.parametrize("build, matched", [
    ("Net()", True),
    ("Net(dim=32, classes=5)", True),
    ("Net(dynamic=False, class_token=True)", True),
    ("Net(dynamic=True)", False),  # another layout: the context says nothing of it
    ("Net(class_token=False)", False),
    ("Net(32, 8, 16, 10, True, True)", False),  # positionally
    ("Net(dynamic=flag)", False),  # not a constant
    ("Net(**kw)", False),  # may pass one
    ("Net(*args)", False),
])
def test_a_build_is_in_the_context_only_with_every_flag_at_its_default(build, matched):
    assert ("Net.__init__" in built_by([build], PROGRAM)) is matched
