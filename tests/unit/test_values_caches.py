"""Caches (issue 28, cause 7; analysis/maybe_none.py, analysis/int_results.py): an object made on
some paths and None on the others is read as the object where a `None` test says it is there, and
a method declared `-> int` whose value is unknown is an int, so `arange(seen, seen + T)` has T
items. The program is tests/unit/values/caches.py; every shape claimed is evaluated against torch
for each way through it."""
import types

import pytest

from .values import answer, program


def _values(function):
    return {v["name"]: v["shape"] for v in answer("caches")["values"] if v["function"] == function}


def _agrees(claimed, got, env):
    assert claimed is not None and len(claimed) == len(got), (claimed, got)
    for c, g in zip(claimed, got):
        if c != "?":
            assert (eval(c, {"max": max}, env) if isinstance(c, str) else c) == g, (claimed, got)


@pytest.mark.parametrize("use_cache", [True, False])
@pytest.mark.parametrize("stored", [None, 0, 3])
def test_the_offset_of_a_cache_made_on_some_paths(use_cache, stored):
    import torch
    mod = program("caches")
    past = None
    if stored is not None:
        past = mod.Cache()
        past.lengths[0] = stored
    x = torch.randn(2, 5, 8)
    with torch.no_grad():
        out = mod.Embed(8, types.SimpleNamespace(use_cache=use_cache))(x, past)
    got = _values("Embed.forward")
    for name in ("positions", "embedded", "again", "first"):
        _agrees(got.get(name), list(out[name].shape), {"x": x, "d": 8})


def test_the_positions_are_exact():
    got = _values("Embed.forward")
    assert got["positions"] == got["again"] == ["x.shape[1]"]  # the conditional and the `if` alike


def test_a_none_test_on_it_stays_open():
    # `x[:, :1] if past is None else x`: either, so the axis they differ on is not claimed
    assert _values("Embed.forward")["first"] == ["x.shape[0]", "?", "x.shape[2]"]


def test_an_undeclared_unknown_result_stays_unknown():
    assert "positions" not in _values("undeclared")
