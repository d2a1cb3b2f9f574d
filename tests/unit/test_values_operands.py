"""Opaque operands of a tensor's arithmetic (issue 28, cause 1; analysis/operands.py): an int
parameter is its symbol, a configuration's attribute is a number where its kind cannot change
the answer, anything else (it may be a tensor) leaves the result unknown. The program is
tests/unit/values/operands.py; each claimed shape is compared with torch's."""
import types

import pytest

from shapehint.analysis.operands import configured

from .values import answer, in_context, program


def _value(name, function="Scaled.forward"):
    """The record of `name` (a value with no shape at all is not listed: shape None)."""
    got = [v for v in answer("operands")["values"] if v["function"] == function and v["name"] == name]
    assert len(got) <= 1, (name, got)
    return got[0] if got else {"shape": None}


def _run(gain, eps):
    import torch
    config = types.SimpleNamespace(width=8, norm_eps=eps, gain=gain)
    with torch.no_grad():
        return program("operands").Scaled(config, 3, 0.5)(torch.randn(2, 5, 8))


@pytest.mark.parametrize("gain,eps", [(2, 1e-5), (0.5, 1)])  # an int or a float: the same shapes
@pytest.mark.parametrize("name", ["normed", "times_n", "gained"])
def test_numbers_keep_the_tensor_shape(name, gain, eps):
    assert _value(name)["shape"] == [2, 5, 8]
    assert list(_run(gain, eps)[name].shape) == [2, 5, 8]


def test_a_configured_epsilon_in_a_calling_context():
    # the layer built from the entry's configuration: `var + config.norm_eps` had no shape there,
    # and every line after it in every layer the entry calls was lost with it
    shifted = _value("shifted", "Norm.forward")
    assert in_context(shifted, "Scaled.forward") == ["x.shape[0]", "x.shape[1]", 1]
    assert in_context(_value("h", "Norm.forward"), "Scaled.forward") == ["x.shape[0]", "x.shape[1]", "x.shape[2]"]


def test_an_opaque_value_may_be_a_tensor():
    # `scale` is unannotated: a tensor of shape (4, 1, 1, 1) would broadcast x to 4-D
    assert _value("scaled")["shape"] is None


@pytest.mark.parametrize("gain,dtype", [(2, "torch.int64"), (0.5, "torch.float32")])
def test_an_integer_tensor_with_a_configured_number_keeps_its_shape_not_its_dtype(gain, dtype):
    # int64 + 2 is int64, int64 + 0.5 is float32: the kind decides the dtype, which is left
    # unknown (tests/unit/test_configured_int_operands.py), but not the shape
    assert _value("shifted_ids")["shape"] == [2, 5]
    out = _run(gain, 1e-5)["shifted_ids"]
    assert list(out.shape) == [2, 5] and str(out.dtype) == dtype


@pytest.mark.parametrize("path,expected", [
    ("config.norm_eps", True), ("self.model_cfg.eps", True), ("args.lr", True),
    ("scale", False), ("self.scale", False), ("config", False)])
def test_which_paths_are_a_configuration_s(path, expected):
    assert configured(path) is expected
