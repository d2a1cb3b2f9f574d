"""The questions answer for the model as `Cls()` builds it: a constructor's defaults (and a
configuration's) are symbols in the analysis (analysis/defaults.py), but the inputs a question
chooses and the branches it decides assume each equals its default (questions/common.py,
`default_assumptions`), unless that contradicts the facts or the user's assumptions. Judged by
running the programs with PyTorch."""
import torch

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.branches import answer_branches
from shapehint.questions.holes import answer_holes
from shapehint.questions.migrate import migrate_function
from shapehint.questions.signatures import signature

from .helpers import branch_outcomes, line_of, namespace

# `dim` is a parameter of both classes, with different defaults: each class's own counts for it
MODEL = '''import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim: int = 32, hidden: int = 48):
        super().__init__()
        self.fc = nn.Linear(dim, hidden)

    def forward(self, x):
        return self.fc(x)


class Model(nn.Module):
    def __init__(self, dim: int = 64, classes: int = 10):
        super().__init__()
        self.block = Block(dim, 2 * dim)
        self.head = nn.Linear(2 * dim, classes)

    def forward(self, x):
        h = self.block(x)
        if h.shape[-1] == 128:
            h = h * 2
        return self.head(h)
'''

CONFIG = '''import torch
import torch.nn as nn


class NetConfig:
    def __init__(self, hidden_size: int = 24, num_labels: int = 3):
        self.hidden_size = hidden_size
        self.num_labels = num_labels


class Net(nn.Module):
    def __init__(self, config: NetConfig):
        super().__init__()
        self.fc = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, x):
        return self.fc(x)
'''


def _run(fn, mig) -> torch.Tensor:
    return fn(**{p["name"]: torch.randn(p["shape"]) for p in mig["params"]})


def test_the_analysis_keeps_the_defaults_symbolic():
    shapes = {(v["line"], v["name"]): v["shape"] for v in analyze_source(MODEL, "m.py").infer_json()["values"]}
    assert shapes[(21, "h")] == ["*x", "2*dim"]


def test_a_migration_proposes_inputs_of_the_model_built_with_its_defaults():
    s = analyze_session(MODEL, "m.py")
    ns = namespace(MODEL)
    for cls, width in (("Model", 64), ("Block", 32)):  # each class its own `dim`
        mig = migrate_function(s, f"{cls}.forward")
        assert mig["status"] == "static" and mig["params"][0]["shape"][-1] == width, mig
        _run(ns[cls]().forward, mig)


def test_a_migration_for_a_config_uses_its_defaults():
    s = analyze_session(CONFIG, "m.py")
    mig = migrate_function(s, "Net.forward")
    assert mig["status"] == "static" and mig["params"][0]["shape"][-1] == 24, mig
    ns = namespace(CONFIG)
    _run(ns["Net"](ns["NetConfig"]()).forward, mig)


def test_an_assumption_against_a_default_is_a_construction_with_another_value():
    """The user's constraint is no clash with the default: the defaults are dropped."""
    s = analyze_session(MODEL, "m.py")
    mig = migrate_function(s, "Block.forward", ["Block.forward: x.shape[-1] == 8"])
    assert mig["status"] == "static" and mig["clash"] == [] and mig["params"][0]["shape"][-1] == 8
    _run(namespace(MODEL)["Block"](dim=8).forward, mig)


def test_a_branch_is_decided_for_the_model_built_with_its_defaults():
    s = analyze_session(MODEL, "m.py")
    b = next(b for b in answer_branches(s) if b["condition"] == "h.shape[-1] == 128")
    assert b["status"] == "always-true"
    x = torch.randn(2, 64)  # (`x`'s rank is open: the witness names no shape for it)
    model = namespace(MODEL)["Model"]()
    assert branch_outcomes(lambda: model(x), line_of(MODEL, "if h.shape"), line_of(MODEL, "h = h * 2")) == {True}


def test_a_hole_is_filled_for_the_model_built_with_its_defaults():
    text = MODEL.replace("        self.head = nn.Linear(2 * dim, classes)", "        self.head = nn.Linear(__, classes)")
    (h,) = answer_holes(analyze_session(text, "m.py"))
    assert h["status"] == "unique" and h["value"] == 128
    model = namespace(text.replace("nn.Linear(__,", f"nn.Linear({h['value']},"))["Model"]()
    model(torch.randn(2, 64))


def test_a_signature_example_uses_the_defaults_but_its_shape_does_not():
    sig = signature(analyze_session(MODEL, "m.py"), "Model.forward")
    (x,) = sig.params
    assert x.example[-1] == 64 and x.shape[-1] != 64  # any width a construction passes
    namespace(MODEL)["Model"]()(torch.randn(*x.example))


NOT_BUILT_BY_DEFAULTS = '''import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim: int = 32):
        super().__init__()
        self.dim = dim
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        assert x.shape[-1] == self.dim
        return self.fc(x)
'''


def test_defaults_that_contradict_the_facts_are_dropped():
    """A class whose defaults do not work (`dim=32` columns into a `Linear(8, ..)`): the questions
    answer for the constructions that do."""
    mig = migrate_function(analyze_session(NOT_BUILT_BY_DEFAULTS, "m.py"), "Block.forward")
    assert mig["status"] == "static" and mig["params"][0]["shape"][-1] == 8, mig
    _run(namespace(NOT_BUILT_BY_DEFAULTS)["Block"](dim=8).forward, mig)
