"""`isinstance` is decided where every concrete value the abstract one stands for gives the same
answer (analysis/typetests.py), and only there."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.objects import BuiltinFn, ChoiceV, ClassObj, InstanceObj
from shapehint.analysis.typetests import isinstance_of
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import (BoolV, DictV, ExtRef, IntV, ListV, ModuleV, NoneV, StrV, TensorV, TupleV,
                                     UnknownV)

INT, LIST, TUPLE, STR = BuiltinFn("int"), BuiltinFn("list"), BuiltinFn("tuple"), BuiltinFn("str")
TENSOR, MODULE, LINEAR = ExtRef("torch.Tensor"), ExtRef("torch.nn.Module"), ExtRef("torch.nn.Linear")


def _cls(name, *bases):
    return ClassObj(name, name, None, list(bases), {})


BASE = _cls("Base", MODULE)
CHILD = _cls("Child", BASE)
PLAIN = _cls("Plain")
FOREIGN = _cls("Foreign", ExtRef("transformers.PreTrainedModel"))
T = TensorV(Shape((Expr.const(2),)))


@pytest.mark.parametrize("value,classinfo,want", [
    (IntV(Expr.const(3)), INT, True),
    (IntV(Expr.const(3)), TupleV((LIST, TUPLE)), False),
    (BoolV(None), INT, True),  # a bool is an int
    (StrV("a"), STR, True),
    (ListV([]), TupleV((LIST, TUPLE)), True),
    (TupleV(()), LIST, False),
    (TupleV((), is_size=True), ExtRef("torch.Size"), True),
    (DictV({}), TENSOR, False),
    (NoneV(), TupleV((INT, TENSOR)), False),
    (NoneV(), BuiltinFn("object"), True),
    (T, TENSOR, True),
    (TensorV(T.shape, optional=True), TENSOR, None),  # may be None
    (T, TupleV((LIST, TUPLE)), None),  # an unannotated parameter is only taken for a tensor
    (ModuleV("torch.nn.Linear", {}), LINEAR, True),
    (ModuleV("torch.nn.Linear", {}), MODULE, True),
    (ModuleV("torch.nn.LazyLinear", {}), LINEAR, None),  # layer classes subclass each other
    (ModuleV("torch.nn.Linear", {}), INT, False),
    (InstanceObj(CHILD), BASE, True),
    (InstanceObj(CHILD), MODULE, True),
    (InstanceObj(BASE), CHILD, False),
    (InstanceObj(PLAIN), TupleV((LIST, TUPLE)), False),
    (InstanceObj(FOREIGN), PLAIN, None),  # its ancestry is not ours to know
    (InstanceObj(FOREIGN), TUPLE, None),
    (UnknownV(), INT, None),
    (IntV(Expr.const(3)), TupleV((INT, UnknownV())), None),
])
def test_isinstance_of(value, classinfo, want):
    assert isinstance_of(value, classinfo) is want


def test_a_decided_isinstance_runs_one_arm():
    src = '''import torch


def pool(x, axis):
    if isinstance(axis, (list, tuple)):
        for ax in axis:
            x = pool(x, ax)
        return x
    return x[:, ::2]


def run(t: torch.Tensor):
    assert t.shape == (4, 6)
    y = pool(t, 1)
    if isinstance(y, torch.Tensor):
        z = y
    else:
        z = y.view(7)  # never runs: no error
    return z
'''
    r = analyze_source(src, "pool.py")
    shapes = {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["line"] > 12}
    assert shapes == {"y": [4, 3], "z": [4, 3]}
    assert not [d for d in r.diagnostics if d.severity == "error"]


def test_an_assumed_tensor_parameter_is_not_decided_against():
    """efficientnet_pytorch's BlockDecoder: `string_list` has no annotation, so the generic
    analysis takes it (and what it yields) for tensors; the asserts must not be SH108."""
    src = '''import torch


def decode(string_list):
    assert isinstance(string_list, list)
    out = []
    for block_string in string_list:
        assert isinstance(block_string, str)
        out.append(block_string.split("_"))
    return out
'''
    r = analyze_source(src, "decode.py")
    assert [d.code for d in r.diagnostics if d.code == "SH108"] == []
    bad = analyze_source(src.replace("    out = []", "    assert isinstance(3, str)\n    out = []"), "d.py")
    assert [d.line for d in bad.diagnostics if d.code == "SH108"] == [6]  # a decided one still is


ITERABLE = ExtRef("collections.abc.Iterable")


@pytest.mark.parametrize("value,want", [
    (BASE, False),  # a module class: its metaclass is `type`, no container
    (PLAIN, None),  # any class: an `Enum` class is iterable
    (ChoiceV((BASE, CHILD)), False),  # every option answers alike
    (ChoiceV((BASE, ListV([]))), None),
    (ChoiceV((BASE, PLAIN)), None),
    (ChoiceV((IntV(Expr.const(1)), StrV("a"))), None),
])
def test_classes_and_choices_against_an_abstract_base_class(value, want):
    assert isinstance_of(value, ITERABLE) is want


def test_a_block_class_choice_is_repeated_not_iterated():
    """timm's `to_ntuple(n)(block)`: a parameter that is one of two module classes is no iterable,
    so the tuple is the class n times (it was the join of both arms: unknown)."""
    import collections.abc
    import torch.nn as nn

    class A(nn.Module):
        pass
    assert not isinstance(A, collections.abc.Iterable)  # what the rule claims, in Python
    src = '''import collections.abc
from itertools import repeat
from typing import Union
import torch
import torch.nn as nn


class A(nn.Module):
    expansion = 1

    def forward(self, x):
        return x


class B(nn.Module):
    expansion = 4

    def forward(self, x):
        return x


def parse(x, n):
    if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
        return tuple(x)
    return tuple(repeat(x, n))


def f(block: type[Union[A, B]], t: torch.Tensor):
    blocks = parse(block, 3)
    y = torch.zeros(len(blocks), blocks[2].expansion)
    return y
'''
    r = analyze_source(src, "m.py")
    got = {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["function"] == "f"}
    assert got["y"] == [3, "block.expansion"]
