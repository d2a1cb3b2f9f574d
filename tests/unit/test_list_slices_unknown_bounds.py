"""A slice of a list of known items at bounds the analysis does not know (`xs[:n]`) is a list of
any of those items (of unknown length), never one item: iterating it, or indexing it, gives an
item's shape. Once it gave the join of the items, so `for t in xs[:n]` walked the rows of a tensor
(t = [3] where torch gives [2, 3]). Each claim is checked against torch."""
import pytest
import torch

from shapehint.analysis.api import analyze_source

SOURCE = '''import torch


def f(n: int):
    x = torch.zeros(2, 3)
    xs = [x, x, x]
    for t in xs[:n]:
        u = t
    v = xs[:n][0]
    w = torch.stack(xs[:n])
    return u, v, w
'''


def _shapes():
    return {v.name: v.shape.to_json() for v in analyze_source(SOURCE, "slices.py").values
            if v.function == "f" and v.shape is not None}


def _run(n):
    env = {}
    exec(compile(SOURCE, "slices.py", "exec"), env)  # noqa: S102 (our own program)
    return env["f"](n)


def test_an_item_of_a_slice_at_unknown_bounds_is_an_item_of_the_list():
    got = _shapes()
    assert got["t"] == [2, 3] and got["u"] == [2, 3] and got["v"] == [2, 3]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_claims_agree_with_torch(n):
    u, v, w = _run(n)
    got = _shapes()
    assert list(u.shape) == got["u"] and list(v.shape) == got["v"]
    assert torch.is_tensor(w) and list(w.shape)[1:] == [2, 3]
    if "w" in got:  # (the stacked count is n-dependent: at most its item axes are claimed)
        assert got["w"][1:] == [2, 3] and not isinstance(got["w"][0], int)
