"""Rank guards teach an unknown-rank parameter its rank: `assert x.dim() == 2`, `x.ndim`,
`len(x.shape)`, `torch._assert(x.dim() == 2, ...)` and `if x.dim() != 2: raise ...` (the idiom of torch.nn and HuggingFace code).
Without them the migration of such a function had no rank to offer ("partial"); each migration
here is checked by running the function on tensors of the migrated shapes."""
import pytest
import torch

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.branches import answer_branches
from shapehint.questions.migrate import migrate_function

from .helpers import namespace

MODULE = '''import torch
import torch.nn as nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x, y):
        {guard}
        return self.fc(x), self.conv(y)
'''

GUARDS = {
    "assert dim": "assert x.dim() == 2 and y.dim() == 4",
    "assert ndim": "assert x.ndim == 2\n        assert 4 == y.ndim",
    "assert len shape": "assert len(x.shape) == 2 and len(y.size()) == 4",
    "raise guard": "if x.dim() != 2 or y.ndimension() != 4:\n            raise ValueError('bad rank')",
    "not guard": "if not (x.dim() == 2 and y.dim() == 4):\n            raise ValueError('bad rank')",
    "torch._assert": "torch._assert(x.dim() == 2, 'x must be 2-d')\n        torch._check(y.ndim == 4)",
    "shape tuples": "assert x.shape == (7, 16)\n        assert y.size() == torch.Size([2, 3, 9, 9])",
    "shape slices": "assert x.shape[1:] == (16,)\n        assert tuple(y.shape[1:]) == (3, 8, 8)",
    "shape raise guard": "if list(x.shape) != [5, 16] or y.shape[1:] != (3, 5, 5):\n            raise ValueError('bad')",
    "two guards": "if x.dim() != 2:\n            raise ValueError('x')\n        if y.dim() != 4:\n            raise ValueError('y')",
    "assert False guard": "if x.dim() != 2:\n            assert False, 'x must be 2-d'\n        if y.dim() != 4:\n            raise ValueError('y')",
    "torch._assert(False) guard": "if x.dim() != 2 or y.dim() != 4:\n            torch._assert(False, 'bad rank')",
}


@pytest.mark.parametrize("guard", GUARDS.values(), ids=list(GUARDS))
def test_guard_gives_the_rank_and_the_migration_runs(guard):
    text = MODULE.format(guard=guard)
    m = migrate_function(analyze_session(text, "guards.py"), "M.forward")
    assert m["status"] == "static", m
    shapes = {p["name"]: p["shape"] for p in m["params"]}
    assert [len(shapes["x"]), len(shapes["y"])] == [2, 4]
    model = namespace(text)["M"]()
    a, b = model(torch.zeros(shapes["x"]), torch.zeros(shapes["y"]))  # the migrated shapes run
    assert a.shape[-1] == 4 and b.shape[1] == 8


@pytest.mark.parametrize("guard,x,y", [
    ("assert x.shape == (7, 16)\n        assert y.size() == torch.Size([2, 3, 9, 9])", [7, 16], [2, 3, 9, 9]),
    ("if list(x.shape) != [5, 16] or y.shape[1:] != (3, 5, 5):\n            raise ValueError('bad')",
     [5, 16], [1, 3, 5, 5]),
    ("torch._assert(x.shape == (4, 16), 'x')\n        torch._check(y.shape[2:] == (6, 6))", [4, 16], [1, 3, 6, 6]),
], ids=["assert", "raise guard", "torch._assert"])
def test_a_shape_equality_pins_the_dimensions_too(guard, x, y):
    m = migrate_function(analyze_session(MODULE.format(guard=guard), "guards.py"), "M.forward")
    assert {p["name"]: p["shape"] for p in m["params"]} == {"x": x, "y": y}


NOT_GUARDS = {
    "inside an undecided if": "if y.shape[0] > 2:\n            assert x.dim() == 2",
    "a lower bound only": "assert x.dim() >= 2",
    "no raise": "if x.dim() != 2:\n            print('odd rank')",
    "rank excluded, not fixed": "if x.dim() == 3:\n            raise ValueError('x')",
    "a count, not a rank": "assert x.size(0) == 2",
    "a suffix, not the shape": "assert x.shape[-2:] == (4, 4)",
    "a starred tuple": "assert x.shape == (2, *y.shape)",
}


@pytest.mark.parametrize("stmt", NOT_GUARDS.values(), ids=list(NOT_GUARDS))
def test_what_does_not_fix_the_rank(stmt):
    text = MODULE.format(guard=stmt).replace("self.fc(x), self.conv(y)", "x.sum(), y")
    m = migrate_function(analyze_session(text, "guards.py"), "M.forward", search=False)  # what the analysis learned
    x = next(p for p in m["params"] if p["name"] == "x")
    assert x["ranks"] == [] and x["shape"] is None


CHECK = '''import torch


def check(x):
    if x.dim() != 3:
        raise ValueError("x must be 3-d")


def f(x):
    {body}
    return x.sum(0)
'''


@pytest.mark.parametrize("body,rank", [
    ("check(x)", [3]),  # a helper's guard holds for its caller
    ("if x.dim() == 2:\n        return x.sum(1)\n    check(x)", []),  # rank 2 returned first
    ("if x.dim() == 2:\n        return x.sum(1)\n    if x.dim() != 3:\n        raise ValueError('x')", []),
])
def test_a_guard_after_a_return_does_not_speak_for_every_path(body, rank):
    m = migrate_function(analyze_session(CHECK.format(body=body), "check.py"), "f", search=False)
    assert m["params"][0]["ranks"] == rank


def test_the_guard_is_not_decided_by_its_own_raise_but_later_tests_are():
    text = '''import torch


def f(x):
    if x.dim() != 2:
        raise ValueError("x must be 2-d")
    if x.dim() == 3:
        x = x[0]
    return x.sum(0)
'''
    got = {b["line"]: b["status"] for b in answer_branches(analyze_session(text, "g.py"))}
    assert got[5] != "always-false"  # inputs of other ranks do take it
    assert got[7] == "always-false"


def test_hover_names_the_line_the_rank_was_learned_from():
    text = MODULE.format(guard="assert x.dim() == 2 and y.dim() == 4")
    result = analyze_source(text, "guards.py")
    origin = result.dims["x.shape[0]"].origin
    assert "rank learned from line 12" in origin
