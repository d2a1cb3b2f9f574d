"""Mapping classes keeping their entries in a class-level dict, behind an instance dict of local
overrides, read with a key not known (tables.any_lookup): when the class gives no way to add
entries, the lookup is one of the entries, so a call of it gives the shape every entry agrees on;
where the entries disagree, or the class can be extended (a `__setitem__`, a class method),
nothing is claimed. The program is tests/unit/values/lookups.py; every shape claimed is evaluated
against torch for every key."""
import pytest

from shapehint.analysis import compare
from shapehint.analysis.objects import OpaqueV
from shapehint.shapes.values import DictV

from .values import answer, program


def _shape(function, name):
    got = [v for v in answer("lookups")["values"] if v["function"] == function and v["name"] == name]
    return got[0]["shape"] if got else None


def _check(claimed, got, x):
    assert claimed is not None
    assert [eval(s, {"x": x}) if isinstance(s, str) else s for s in claimed] == list(got.shape)


@pytest.mark.parametrize("function,name,impls", [
    ("agreeing", "y", ["fused", "plain"]),
])
def test_entries_that_agree_give_their_shape(function, name, impls):
    import torch
    mod = program("lookups")
    claimed = _shape(function, name)
    assert claimed is not None and "?" not in claimed and not any(str(s).startswith("*") for s in claimed), claimed
    x = torch.randn(2, 7, 64)
    for impl in impls:
        _check(claimed, getattr(mod, function)(x, impl), x)


def test_a_layer_reading_the_lookup_by_its_attribute():
    import torch
    mod = program("lookups")
    claimed = _shape("Attn.forward", "a")
    x = torch.randn(3, 5, 64)
    for impl in ["fused", "plain"]:
        _check(claimed, mod.Attn(impl)(x), x)


def test_entries_that_disagree_give_none():
    import torch
    mod = program("lookups")
    x = torch.randn(2, 7, 64)
    assert mod.disagreeing(x, "fused").shape != mod.disagreeing(x, "pooled").shape
    z = _shape("disagreeing", "z")
    assert z is None or all(s == "?" or str(s).startswith("*") for s in z), z


def test_a_mapping_the_program_can_extend_gives_none():
    # (its class has a `__setitem__`: code the analysis never sees may add an entry of any shape,
    # though nothing in the program does)
    import torch
    mod = program("lookups")
    mod.EXTENSIBLE["pooled"] = mod.pooled_attention
    x = torch.randn(2, 7, 64)
    assert mod.extensible(x, "fused").shape != mod.extensible(x, "pooled").shape
    r = _shape("extensible", "r")
    assert r is None or all(s == "?" or str(s).startswith("*") for s in r), r


def test_an_exact_dict_with_no_keys_holds_no_key():
    cmp = compare.Comparisons.__new__(compare.Comparisons)
    assert cmp.contains(DictV({}, exact=True), OpaqueV("config.kind")).is_false
    assert cmp.contains(DictV({}), OpaqueV("config.kind")) is None  # (a dict others may fill)
