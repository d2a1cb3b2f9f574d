"""Lists repeated a number of times not known (analysis/evaluator.py `binop`). The program is
tests/unit/values/repeated.py: with `[None] * n` an unknown count, `masks[i]` is None, so the
layers' sum keeps the input's shape (before, the item was unknown and so was every layer's
result). The claim is checked against torch for several inputs and layer counts."""
import pytest

from .values import answer, program


def _claim():
    got = [v["shape"] for v in answer("repeated")["values"] if v["function"] == "layers" and v["name"] == "x"]
    assert len(got) == 1, got
    return got[0]


def test_an_item_of_a_list_of_nones_repeated_n_times_is_none():
    assert _claim() == ["*x", "x.shape[-1]"]  # the input's shape: its leading axes, then its last


@pytest.mark.parametrize("shape", [(2, 3), (4, 1, 5), (7,)])
@pytest.mark.parametrize("n", [1, 3])
def test_the_claim_agrees_with_torch(shape, n):
    out = program("repeated").run(shape, n)
    assert list(out.shape) == list(shape[:-1]) + [shape[-1]]
