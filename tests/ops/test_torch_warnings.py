"""What PyTorch only warns about is a ShapeHint warning (SH2xx), never an error: the rule
accepts exactly what PyTorch runs, and warns exactly where PyTorch warns."""
import warnings

import pytest
import torch
import torch.nn.functional as F

from shapehint.ops.concrete import ConcreteContext, OpFailed, apply, build_module, call_module, shape_of, tensor
from shapehint.ops.registry import lookup


def _torch(fn, rank):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = ("ok", tuple(fn(torch.ones((2,) * rank)).shape))
        except RuntimeError:
            return ("error", None), None  # (a warning before the error says nothing)
    return out, any(issubclass(w.category, UserWarning) for w in caught)


def _rule(run, rank):
    cx = ConcreteContext("op")
    try:
        out = ("ok", shape_of(run(cx, tensor(*((2,) * rank)))))
    except OpFailed as e:
        assert e.code.startswith("SH1"), e.code
        return ("error", None), None
    assert all(code.startswith("SH2") for code, _ in cx.warnings)
    return out, bool(cx.warnings)


FUNCTIONAL = {"dropout1d": F.dropout1d, "dropout2d": F.dropout2d, "dropout3d": F.dropout3d}
LAYERS = {"Dropout1d": torch.nn.Dropout1d, "Dropout2d": torch.nn.Dropout2d, "Dropout3d": torch.nn.Dropout3d}


@pytest.mark.parametrize("rank", range(0, 7))
@pytest.mark.parametrize("name", FUNCTIONAL)
def test_feature_dropout_functional(name, rank):
    rule = lookup(f"torch.nn.functional.{name}")
    assert _rule(lambda cx, x: rule.fn(cx, x), rank) == _torch(FUNCTIONAL[name], rank)


@pytest.mark.parametrize("rank", range(0, 7))
@pytest.mark.parametrize("name", LAYERS)
def test_feature_dropout_layers(name, rank):
    m = build_module(f"torch.nn.{name}")
    assert _rule(lambda cx, x: call_module(cx, m, [x], {}), rank) == _torch(LAYERS[name](), rank)


def test_dropout2d_on_a_2d_input_is_a_warning_in_a_program():
    from shapehint.analysis.api import analyze_source
    src = ("import torch\nfrom torch import nn\n\n\nclass Head(nn.Module):\n    def __init__(self):\n"
           "        super().__init__()\n        self.drop = nn.Dropout2d(0.1)\n\n"
           "    def forward(self, x):\n        assert x.dim() == 2\n        return self.drop(x)\n")
    diags = analyze_source(src, "m.py").infer_json()["diagnostics"]
    assert [(d["line"], d["code"], d["severity"]) for d in diags] == [(12, "SH205", "warning")]
