"""An input axis the body ties to a value the model is built with (`first = x[:, 0]` into
`nn.Linear(config.hidden_size, ...)`) is listed as what the example needs of the model
(`requires`), since the typical input runs only for such a model: `[2, 32]` for a pooler runs
only when the hidden size is 2. A constructor default pins the value, and the example keeps to
it. Each example is run with torch on the meta device on a model built as `requires` says."""
import types

import pytest

from shapehint.analysis.api import analyze_session
from shapehint.questions.signatures import signatures_json

SRC = '''import torch
from torch import nn


class ByConfig(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, hidden_states):
        return torch.tanh(self.dense(hidden_states[:, 0]))


class ByDefault(nn.Module):
    def __init__(self, hidden_size=16):
        super().__init__()
        self.dense = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states):
        return self.dense(hidden_states[:, 0])


class Free(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.dense = nn.Linear(hidden_size, hidden_size)

    def forward(self, x):
        return x.sum(-1) * 2
'''


def _sigs():
    return {s["function"]: s["params"][0] for s in signatures_json(analyze_session(SRC, "pool.py"))}


def _runs(model, example):
    import torch
    model.to("meta")(torch.empty(*example, device="meta"))


def _scope():
    scope = {}
    exec(compile(SRC, "pool.py", "exec"), scope)
    return scope


def test_a_relation_to_a_configuration_value_is_required_and_the_example_runs_under_it():
    p = _sigs()["ByConfig.forward"]
    assert p["requires"] == [f"{p['shape'][0]} == config.hidden_size"]
    size = p["example"][0]  # what the relation asks of the model for this example
    _runs(_scope()["ByConfig"](types.SimpleNamespace(hidden_size=size)), p["example"])
    with pytest.raises(RuntimeError):  # and it is a real requirement
        _runs(_scope()["ByConfig"](types.SimpleNamespace(hidden_size=size + 1)), p["example"])


def test_a_default_pins_the_value_and_the_example_keeps_to_it():
    p = _sigs()["ByDefault.forward"]
    assert p["requires"] == [f"{p['shape'][0]} == hidden_size"]
    _runs(_scope()["ByDefault"](), p["example"])


def test_no_relation_no_requirement():
    assert "requires" not in _sigs()["Free.forward"]


def test_a_term_multiplying_input_axes_is_not_a_requirement():
    from shapehint.questions.signatures import _one_axis_a_term
    from shapehint.shapes.expr import Expr
    from shapehint.shapes.shape import eq
    B, T, C, dim, heads = (Expr.sym(n) for n in ("B", "T", "C", "dim", "heads"))
    inputs = {"B", "T", "C"}
    assert _one_axis_a_term(eq(C, dim), inputs)
    assert _one_axis_a_term(eq(C // heads, dim), inputs)
    assert not _one_axis_a_term(eq(B * T * heads * (C // heads), B * T * dim), inputs)  # an element count
    assert not _one_axis_a_term(eq((B * T * dim) % 300, 0), inputs)
