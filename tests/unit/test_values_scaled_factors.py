"""A number on some paths and a configuration's item on others is a number of a tensor's
arithmetic (analysis/operands.py: `hyperparameter`, `configured_get`): a scale one of several
functions of a table computes (a constant, `math` of an item, an item read by `.get`). A value
known by name that is not a configuration's may be a tensor, and keeps the result unknown. The
program is tests/unit/values/scaled_factors.py; each claimed shape is compared with torch's."""
import types

import pytest

from shapehint.analysis.objects import HyperparameterV, OpaqueV, SizedHyperparameterV
from shapehint.analysis.operands import hyperparameter, size_of
from shapehint.shapes.expr import Expr
from shapehint.shapes.values import FloatV, IntV, NoneV, StrV, TensorV
from shapehint.shapes.shape import Shape

from .values import answer, program


def _shape(name, function):
    got = [v for v in answer("scaled_factors")["values"] if v["function"] == function and v["name"] == name]
    return max(got, key=lambda v: v["line"])["shape"] if got else None


def _config(kind, **extra):
    return types.SimpleNamespace(max_len=64, scaling={"kind": kind, "factor": 4.0, **extra})


@pytest.mark.parametrize("config", [
    _config("plain"), _config("logged"), _config("given"), _config("given", scale=0.5),
    types.SimpleNamespace(max_len=64, scaling=None)])
def test_a_scale_one_of_a_table_of_functions_computes(config):
    import torch
    assert _shape("cos", "Rotary.forward") == ["x.shape[0]", "x.shape[1]", "2*x.shape[2]"]
    x = torch.randn(2, 3, 4)
    assert list(program("scaled_factors").Rotary(config, 8)(x).shape) == [2, 3, 8]


@pytest.mark.parametrize("function,extra", [
    ("logged", {}), ("given_or_none", {"scale": 0.5}), ("given_or_default", {}), ("given_or_default", {"scale": 3}),
    ("mscaled", {"mscale": 1}), ("mscaled", {"mscale": 0.7})])
def test_a_configured_number_keeps_the_tensor_s_shape(function, extra):
    import torch
    assert _shape("scaled", function) == [2, 5]
    assert list(getattr(program("scaled_factors"), function)(_config("plain", **extra), torch.randn(2, 5)).shape) == [2, 5]


def test_an_item_read_by_get_may_be_none_which_the_arithmetic_refuses():
    import torch
    with pytest.raises(TypeError):
        program("scaled_factors").given_or_none(_config("plain"), torch.randn(2, 5))


@pytest.mark.parametrize("function", ["not_a_configuration", "either_unknown"])
def test_a_number_joined_with_anything_else_may_be_a_tensor(function):
    import torch
    assert _shape("picked", function) is None
    mod = program("scaled_factors")
    outputs = {"scale": torch.ones(4, 1, 1)}
    if function == "not_a_configuration":
        out = mod.not_a_configuration(outputs, torch.randn(2, 5))
    else:
        out = mod.either_unknown(types.SimpleNamespace(**outputs), torch.randn(2, 5), False)
    assert list(out.shape) == [4, 2, 5]


@pytest.mark.parametrize("vals,joined", [
    ([FloatV(1.0), OpaqueV("config.scale")], True),
    ([IntV(Expr.const(2)), HyperparameterV("join")], True),
    ([FloatV(1.0), FloatV(None)], False),            # numbers alone: NumberV, not this
    ([FloatV(1.0), OpaqueV("outputs.scale")], False),  # may be a tensor
    ([FloatV(1.0), NoneV()], False),
    ([OpaqueV("config.act"), StrV("gelu")], False),
    ([OpaqueV("config.scale"), TensorV(Shape.unknown("s"))], False)])
def test_which_joins_are_hyperparameters(vals, joined):
    assert (hyperparameter(vals, lambda: Expr.sym("w")) is not None) is joined


@pytest.mark.parametrize("vals,sized", [
    ([OpaqueV("config.n_inner"), IntV(Expr.sym("h") * 4)], True),  # a width: sizes take its symbol
    ([IntV(Expr.const(2)), HyperparameterV("join")], False),
    ([FloatV(1.0), OpaqueV("config.scale")], False)])               # a float among them: no size
def test_which_joins_are_sizes(vals, sized):
    got = hyperparameter(vals, lambda: Expr.sym("w"))
    assert isinstance(got, SizedHyperparameterV) is sized
    assert size_of(got) == (Expr.sym("w") if sized else None)
