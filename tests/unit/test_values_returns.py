"""A call with an early return joins its paths by what each proves (analysis/returns.py): under
`n_rep == 1` the input's `h` heads are `h*n_rep`, so `repeat_kv`-like helpers keep the head
count; paths that really differ still join to `?`. Each claim is evaluated against torch."""
import pytest

from .values import answer, program


def _shape(name):
    got = [v["shape"] for v in answer("returns")["values"] if v["function"] == "attend" and v["name"] == name]
    assert len(got) == 1, (name, got)
    return got[0]


def _agrees(claimed, got, env):
    assert len(claimed) == len(got), (claimed, got)
    for c, g in zip(claimed, got):
        if c != "?":
            assert (eval(c, dict(env)) if isinstance(c, str) else c) == g, (claimed, got)


@pytest.mark.parametrize("groups", [1, 2, 3])
@pytest.mark.parametrize("name", ["keys", "rows", "other"])
def test_joined_returns_agree_with_torch(name, groups):
    import torch

    q, k, m = torch.randn(5, 4, 6, 8), torch.randn(5, 2, 6, 8), torch.randn(7, 3)
    got = list(program("returns").attend(q, k, m, groups)[name].shape)
    _agrees(_shape(name), got, {"q": q, "k": k, "m": m, "groups": groups})


def test_the_early_return_keeps_the_head_count():
    assert _shape("keys") == ["k.shape[0]", "groups*k.shape[1]", "k.shape[2]", "k.shape[3]"]
    assert _shape("rows")[0] == "min(groups, m.shape[0])"


def test_paths_that_differ_claim_nothing_for_that_dim():
    # under `k == 2` the first path has 1 row where the other has min(k, rows) = 2 rows or fewer
    assert _shape("other")[0] == "?"
