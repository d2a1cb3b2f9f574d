"""Output objects (issue 28, cause 2): a dataclass over an ordered dict (whose base has an
`__init__` of its own, and a `__post_init__` storing the fields that are not None as items) is
read by attribute, key, position, slice and through `keys()` (a `to_tuple()`); so is a plain
dataclass. The program is tests/unit/values/outputs.py; every shape claimed is evaluated against
torch, in the calling context where the model is built (`entry`)."""
import pytest

from .values import answer, in_context, program


def _values():
    return {v["name"]: v for v in answer("outputs")["values"] if v["function"] == "Model.forward"}


def _in_entry(v):
    # the entry's context; where it prints as the record's shape (its own analysis lost the rank,
    # so the shape is the calls' join: analysis/contexts.rank_lost) it is not listed beside it
    if not any(c["context"].startswith("entry:") for c in v.get("contexts", [])):
        return v["shape"]
    return in_context(v, "entry:")


def _run(flag):
    import torch
    mod = program("outputs")
    x = torch.randn(3, 5, 8)
    with torch.no_grad():
        return x, mod.entry(x, flag)


@pytest.mark.parametrize("name", program("outputs").NAMES)
def test_each_read_of_a_field_gives_its_value(name):
    v = _values().get(name)
    assert v is not None, f"{name}: no shape"
    claimed = _in_entry(v)
    for flag in (True, False):
        x, got = _run(flag)
        observed = got[program("outputs").NAMES.index(name)]
        assert [eval(s, {"x": x}) if isinstance(s, str) else s for s in claimed] == list(observed.shape), name


def test_a_position_after_a_field_that_may_be_none_is_not_claimed():
    # `maybe[0]` is `last_hidden_state` when it is given, else `pooled`: torch gives both
    shapes = {tuple(_run(flag)[1][11].shape) for flag in (True, False)}
    assert len(shapes) == 2
    v = _values().get("undecided")
    assert v is None or all(s == "?" or str(s).startswith("*") for s in _in_entry(v)), v


def test_the_keys_are_the_fields_given():
    _, got = _run(True)
    assert got[12] == ["last_hidden_state", "pooled"]  # the program: `attentions` is None, no item
