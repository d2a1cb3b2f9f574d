"""Python's `in` / `not in` as the analysis evaluates them: a tuple or list with known items holds
what equals one of them (over symbolic sizes, the disjunction), a string its substrings, a dict
or ModuleDict the keys it is known to have (a missing key decides nothing: `**kwargs` may hold
it), `range(a, b)` the ints a <= i < b. Each decided case is checked against Python itself."""
import pytest

from shapehint.analysis.api import analyze_source

HEAD = '''import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor

TABLE = {"layernorm": 1, "rmsnorm": 2}


def f(x: Float[Tensor, "a b"], name, mode="bilinear", norm_layer=None, **kwargs):
'''


def _result(body: str):
    text = HEAD + "".join(f"    {line}\n" for line in body.strip().splitlines())
    return analyze_source(text, "m.py")


def _errors(r):
    return [(d.line, d.code) for d in r.diagnostics if d.severity == "error"]


def _arms(test: str) -> set:
    """The ranks `y` has in the arms of `if test` that the analysis runs (1: true, 2: false)."""
    r = _result(f"if {test}:\n    y = x.view(-1)\nelse:\n    y = x.view(-1, 1)\nreturn y")
    assert not _errors(r)
    return {v.shape.rank for v in r.values if v.name == "y" and v.function == "f" and v.shape and v.shape.rank}


DECIDED = [
    ("'layernorm' in TABLE", True),
    ("'ln' in ('layernorm', 'ln')", True),
    ("'ln' not in ('layernorm', 'rmsnorm')", True),
    ("3 in [1, 2, 4]", False),
    ("'norm' in 'layernorm'", True),
    ("'x' in 'layernorm'", False),
    ("'bilinear' in ('nearest', 'bilinear')", True),
    ("'bilinear' not in ('nearest', 'bicubic')", True),
    ("2 in range(1, 5)", True),
    ("5 in range(1, 5)", False),
]


@pytest.mark.parametrize("test,truth", DECIDED, ids=[t for t, _ in DECIDED])
def test_a_decided_membership_agrees_with_python(test, truth):
    assert eval(test, {"TABLE": {"layernorm": 1, "rmsnorm": 2}, "mode": "bilinear"}) is truth
    assert _arms(test) == ({1} if truth else {2})


# (a string default is one value callers may replace: generic.own_default)
@pytest.mark.parametrize("test", ["'groupnorm' in TABLE", "'mask' in kwargs", "name in ('a', 'b')",
                                  "mode in ('nearest', 'bilinear')", "mode not in ('nearest', 'bicubic')"])
def test_what_is_not_known_to_be_there_decides_nothing(test):
    assert _arms(test) == {1, 2}


def test_membership_of_a_size_is_a_disjunction_over_its_symbols():
    r = _result("assert x.shape[1] in (3, 5)\nassert x.shape[1] != 3\ny = x.view(-1, 5)\n"
                "assert x.shape[1] != 5\nreturn y")
    assert _errors(r) == [(13, "SH108")]  # only 3 and 5 were possible, and both are ruled out


def test_an_assertion_of_a_missing_item_is_an_error():
    r = _result("assert 'gelu' in ('relu', 'silu')\nreturn x")
    assert _errors(r) == [(10, "SH108")]


def test_the_else_arm_of_a_known_key_is_not_analysed_as_reachable():
    """timm's convnext: `if norm_layer in _NORM_MAP: ... else: assert conv_mlp` with the
    constructor's default `conv_mlp=False` was an always-failing assertion."""
    r = _result("norm = norm_layer or 'layernorm'\nconv_mlp = False\nif norm in TABLE:\n    y = x\n"
                "else:\n    assert conv_mlp, 'a norm layer needs the conv MLP'\n    y = x\nreturn y")
    assert _errors(r) == []
