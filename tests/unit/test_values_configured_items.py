"""Items of a configuration's mappings read by a constant key (`config.rope_scaling["factor"]`) are
numbers of a tensor's arithmetic, as the configuration's attributes are (analysis/operands.py);
a configuration's attribute with a float is a float (analysis/arith.py); `math.pi` is its float.
The program is tests/unit/values/configured_items.py; each claimed shape is compared with torch's."""
import json
import types

import pytest

from shapehint.analysis.arith import math_constant

from .values import answer, program


def _shape(name, function):
    """The shape of `name`'s last record in `function` (None: not listed, no shape at all)."""
    got = [v for v in answer("configured_items")["values"] if v["function"] == function and v["name"] == name]
    return max(got, key=lambda v: v["line"])["shape"] if got else None


def _config(factor):
    return types.SimpleNamespace(rope_theta=10000.0, max_len=32, rope_scaling={
        "factor": factor, "original_len": 64, "low_freq_factor": 1})


def _torch_shape(function, dim, factor):
    mod = program("configured_items")
    config = _config(factor)
    args = (config, dim, 48) if function == "scaled_ntk" else (config, dim)
    return list(getattr(mod, function)(*args).shape)


@pytest.mark.parametrize("factor", [8.0, 2])  # a float or an int: the same shapes
@pytest.mark.parametrize("dim", [8, 7])
@pytest.mark.parametrize("function,name", [
    ("scaled_linear", "inv_freq"), ("scaled_ntk", "ntk"), ("scaled_bands", "wavelen"),
    ("scaled_bands", "banded"), ("scaled_bands", "smooth"), ("scaled_bands", "mixed")])
def test_scaled_frequencies_keep_their_shape(function, name, dim, factor):
    shape = _shape(name, function)
    assert shape == ["(dim - 1)//2 + 1"]
    assert [eval(shape[0], {"dim": dim})] == _torch_shape(function, dim, factor)


def test_an_item_of_a_configuration_not_known():
    # the mapping is unknown (json), the item read from a configuration by a constant key is a number
    assert _shape("scaled", "loaded") == [2, 5]
    import torch
    text = json.dumps({"scaling": {"factor": 0.5}})
    assert list(program("configured_items").loaded(text, torch.randn(2, 5)).shape) == [2, 5]


def test_an_item_of_anything_else_may_be_a_tensor():
    assert _shape("picked", "not_a_configuration") is None
    import torch
    outputs = {"scale": torch.ones(4, 1, 1)}
    assert list(program("configured_items").not_a_configuration(outputs, torch.randn(2, 5)).shape) == [4, 2, 5]


def test_an_integer_tensor_with_a_configured_item_keeps_its_shape_not_its_dtype():
    # (operands.py: the item's kind decides the dtype, int64 or float32, never the shape)
    assert _shape("shifted", "integer_ids") == [2, 5]
    mod = program("configured_items")
    assert mod.integer_ids(_config(2)).dtype != mod.integer_ids(_config(0.5)).dtype
    assert list(mod.integer_ids(_config(2)).shape) == list(mod.integer_ids(_config(0.5)).shape) == [2, 5]


@pytest.mark.parametrize("path,known", [("math.pi", True), ("math.e", True), ("math.floor", False), ("torch.pi", False)])
def test_math_constants(path, known):
    assert (math_constant(path) is not None) is known
