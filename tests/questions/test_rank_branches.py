"""Q3 on a test over a rank the analysis does not know (`if input.dim() != 4: raise ...` in an
unannotated function, the idiom of torch.nn): each outcome some rank takes, with a witness input
of that rank — checked here by running the function on it. Such tests were `unknown`."""
import pytest
import torch

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.branches import answer_branches

from .helpers import namespace

PROGRAM = '''import torch
import torch.nn as nn


def four(x):
    if x.dim() != 4:
        raise ValueError("4-d")
    return x


def three_or_four(x):
    if x.dim() not in (3, 4):
        raise ValueError("3-d or 4-d")
    return x


def two_to_five(x):
    n = x.shape[0]
    if x.dim() < 2 or len(x.shape) > 5:
        raise ValueError("2-d to 5-d")
    return x * n


def never(x):
    if x.ndim < 0:
        raise ValueError("no tensor has a negative rank")
    return x


def scalar(x):
    if x.dim() == 0:
        raise ValueError("a scalar")
    return x


class Checked(nn.Module):
    def _check_input_dim(self, input):
        if input.dim() != 3:
            raise ValueError("3-d")

    def forward(self, x):
        self._check_input_dim(x)
        return x * 2
'''

EXPECTED = {"four": "depends", "three_or_four": "depends", "two_to_five": "depends", "never": "always-false",
            "scalar": "depends", "Checked._check_input_dim": "depends"}


def _answers(assume=()):
    return {b["function"]: b for b in answer_branches(analyze_session(PROGRAM, "ranks.py"), assume=list(assume))}


def test_statuses():
    assert {f: b["status"] for f, b in _answers().items()} == EXPECTED


@pytest.mark.parametrize("fn", sorted(EXPECTED))
def test_each_witness_takes_its_outcome_when_run(fn):
    b = _answers()[fn]
    ns = namespace(PROGRAM)
    target = b["witness_function"]
    call = ns[target] if "." not in target else getattr(ns[target.split(".")[0]](), target.split(".")[1])
    for outcome, inputs in b["witnesses"].items():
        if inputs is None:
            assert b["status"] == ("always-true" if outcome == "false" else "always-false")
            continue
        args = {k: torch.zeros(v) for k, v in inputs.items()}
        if outcome == "true":
            with pytest.raises(ValueError):
                call(**args)
        else:
            call(**args)


def test_witnesses_have_the_rank_the_test_needs():
    got = _answers()
    assert len(got["four"]["witnesses"]["false"]["x"]) == 4
    assert len(got["four"]["witnesses"]["true"]["x"]) != 4
    assert len(got["scalar"]["witnesses"]["true"]["x"]) == 0
    assert len(got["Checked._check_input_dim"]["witnesses"]["false"]["x"]) == 3  # inputs of forward


def test_an_assumption_leaves_a_rank_test_unknown():
    """Assumptions may speak of the rank (`x.dim() == 4`), which the rank outcomes do not follow."""
    assert _answers(["x.shape[0] >= 1"])["four"]["status"] == "unknown"


def test_an_optional_tensor_tested_with_its_rank_depends_on_the_rank_given():
    # `hx is not None and hx.dim() != 2` is judged with `hx` given (optional_args._guarded_test;
    # before: unknown): each witness is a given `hx` whose rank takes that outcome
    text = "import torch\n\n\ndef f(x, hx=None):\n    if hx is not None and hx.dim() != 2:\n" \
           "        raise ValueError('hx')\n    return x\n"
    got = answer_branches(analyze_session(text, "opt.py"))[0]
    assert got["status"] == "depends"
    for outcome, witness in got["witnesses"].items():
        hx = torch.zeros(witness["hx"])
        assert (hx is not None and hx.dim() != 2) == (outcome == "true")
