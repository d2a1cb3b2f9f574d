"""Norm layers passed as `functools.partial` and unbound again (issue 27, MobileNet-like stems):
a helper that takes a norm layer, reads the partial's `func` and `keywords` to bind them again
with an activation, and picks the activation class from one of two tables by a mode flag the
analysis cannot decide (both tables hold the same torch class).

Before: a partial's `func`/`keywords`/`args` were unknown (`.func` of a partial read as nothing),
so a factory passing `norm_layer=partial(nn.BatchNorm2d)` lost the norm layer and every line after
it in its construction context; and a choice between two reads of one torch class
(`nn.Hardswish` from either table) stayed a choice of two options, whose `isinstance` and calls
were undecided, so the activation built from it was unknown. Every shape claimed is checked
against torch (meta tensors)."""
import pytest

from shapehint.analysis.api import analyze_source

from .infer_values import context_shape, value_at

PROGRAM = '''import functools
import types
from functools import partial

import torch
from torch import nn
import torch.nn.functional as F

_MODE = False


def set_mode(flag):
    global _MODE
    _MODE = flag


def fast_mode():
    return _MODE


_FAST = dict(relu=nn.ReLU, hswish=nn.Hardswish)
_PLAIN = dict(relu=nn.ReLU, hswish=nn.Hardswish, gelu=nn.GELU)


def act_by_name(name):
    if not isinstance(name, str):
        return name
    if fast_mode():
        return _FAST[name]
    return _PLAIN[name]


class NormAct(nn.BatchNorm2d):
    def __init__(self, num_features, eps=1e-5, act_layer=nn.ReLU, inplace=True):
        super().__init__(num_features, eps=eps)
        self.act = act_by_name(act_layer)(inplace=inplace)

    def forward(self, x):
        x = F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias, False, 0.1, self.eps)
        return self.act(x)


_WITH_ACT = {NormAct}


def with_act(norm_layer, act_layer=None):
    assert isinstance(norm_layer, (type, functools.partial))
    kw = {}
    if isinstance(norm_layer, functools.partial):
        kw.update(norm_layer.keywords)
        norm_layer = norm_layer.func
    picked = dict(batchnorm2d=NormAct).get(norm_layer.__name__.lower(), None)
    if picked in _WITH_ACT:
        kw.setdefault("act_layer", act_layer)
    return functools.partial(picked, **kw) if kw else picked


class Net(nn.Module):
    def __init__(self, norm_layer=None, act_layer=None, width: int = 16):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        act_layer = act_layer or nn.ReLU
        self.conv = nn.Conv2d(3, width, 3, stride=2, padding=1)
        self.bn = with_act(norm_layer, act_layer)(width)
        self.head = nn.Conv2d(width, 2 * width, 1)

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        y = self.head(x)
        return y


def small(**kwargs):
    return Net(norm_layer=partial(nn.BatchNorm2d, eps=1e-3), act_layer=act_by_name("hswish"), **kwargs)


def parts(**kwargs):
    norm = partial(nn.BatchNorm2d, eps=1e-3)
    assert norm.args == () and norm.keywords["eps"] == 1e-3
    return Net(norm_layer=partial(norm.func, **norm.keywords), **kwargs)
'''
FORWARD = "Net.forward"
LINES = ((68, "x"), (69, "x"), (70, "y"))


def _values():
    return analyze_source(PROGRAM, "partialparts.py").infer_json()["values"]


def _context(values, line, name, label):
    return context_shape(value_at(values, FORWARD, line, name, required=True), label)


def _torch(factory):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "partialparts.py", "exec"), ns)
    net = ns[factory]().to("meta")
    x = torch.empty(2, 3, 32, 24, device="meta")
    a = net.conv(x)
    b = net.bn(a)
    return x, {68: a, 69: b, 70: net.head(b)}


@pytest.mark.parametrize("factory, label", [("small", "small:75"), ("parts", "parts:81")])
def test_a_partial_unbound_and_bound_again_keeps_the_factorys_shapes(factory, label):
    values = _values()
    x, seen = _torch(factory)
    for line, name in LINES:
        shape = _context(values, line, name, label)
        assert shape is not None and "?" not in shape, (line, shape)
        got = [d if isinstance(d, int) else eval(d, {"x": x, "width": 16}) for d in shape]
        assert got == list(seen[line].shape), (line, shape)


def test_a_choice_of_one_torch_class_read_from_two_tables_is_that_class():
    from shapehint.analysis.choices import choice_of
    from shapehint.shapes.values import ExtRef
    one = choice_of([ExtRef("torch.nn.Hardswish"), ExtRef("torch.nn.Hardswish")])
    assert isinstance(one, ExtRef) and one.path == "torch.nn.Hardswish"
    two = choice_of([ExtRef("torch.nn.Hardswish"), ExtRef("torch.nn.ReLU")])
    assert len(two.options) == 2
