"""`isinstance(p, T)` for a `functools.partial` object `p` (analysis/typetests.py): False for a
builtin type, a torch class (a layer, `nn.Module`, `torch.Tensor`), and a class of the analysed
code, the class the partial wraps included: a partial is an instance of `functools.partial` only.
timm's layer helpers test `isinstance(layer, str)` before calling what they were given
(`se_layer=partial(SqueezeExcite, ...)`); undecided, both arms ran and the layer built was a join
of a string's and the partial's, its channels unknown. Shapes are checked against torch (meta)."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.objects import BuiltinFn, ClassObj, PartialV
from shapehint.analysis.typetests import isinstance_of
from shapehint.shapes.values import ExtRef, TupleV

PROGRAM = '''from functools import partial

import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self, ch, scale=1.0):
        super().__init__()
        self.proj = nn.Conv2d(ch, ch, 1)

    def forward(self, x):
        return self.proj(x)


def make(layer, ch):
    if isinstance(layer, str):
        return nn.Conv2d(ch, ch * 2, 1)
    if isinstance(layer, (bool, nn.Module, torch.Tensor)):
        return nn.Conv2d(ch, ch * 3, 1)
    if isinstance(layer, Gate):  # never: a partial is no instance of the class it wraps
        return nn.Conv2d(ch, ch * 4, 1)
    return layer(ch)


class Net(nn.Module):
    def __init__(self, width=8, gate_layer=partial(Gate, scale=0.5)):
        super().__init__()
        self.stem = nn.Conv2d(3, width, 3, stride=2, padding=1)
        self.gate = make(gate_layer, width)

    def forward(self, x):
        y = self.stem(x)
        z = self.gate(y)
        return z
'''


def test_a_partial_is_no_str_layer_tensor_or_the_class_it_wraps():
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "gates.py", "exec"), ns)
    gate = ns["partial"](ns["Gate"], scale=0.5)
    assert not isinstance(gate, (str, bool, torch.nn.Module, torch.Tensor, ns["Gate"]))  # what the rule claims
    x = torch.empty(2, 3, 32, 24, device="meta")
    net = ns["Net"]().to("meta")
    want = list(net(x).shape)
    r = analyze_source(PROGRAM, "gates.py")
    shape = [v["shape"] for v in r.infer_json()["values"] if v["name"] == "z" and v["line"] == 34][0]
    assert "?" not in shape, shape
    assert [d if isinstance(d, int) else eval(d, {"x": x, "width": 8}) for d in shape] == want
    assert not [d for d in r.diagnostics if d.severity == "error"]


def _cls(name, *bases):
    return ClassObj(name, name, None, list(bases), {})


GATE = _cls("Gate", ExtRef("torch.nn.Module"))
PROTO = _cls("Gated", ExtRef("typing.Protocol"))  # a runtime-checkable protocol may claim any callable
P = PartialV(GATE, (), {})


@pytest.mark.parametrize("classinfo,want", [
    (BuiltinFn("str"), False),
    (TupleV((BuiltinFn("int"), BuiltinFn("tuple"))), False),
    (ExtRef("torch.nn.Module"), False),
    (ExtRef("torch.Tensor"), False),
    (GATE, False),  # the class it wraps
    (ExtRef("functools.partial"), True),
    (PROTO, None),
    (ExtRef("collections.abc.Callable"), None),  # (true, but not this rule's to say)
    (ExtRef("numpy.ndarray"), None),
])
def test_isinstance_of_a_partial(classinfo, want):
    assert isinstance_of(P, classinfo) is want
