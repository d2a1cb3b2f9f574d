"""Tables of callables (issue 28, cause 5): a mapping subclass of a dict of classes and
`(class, kwargs)` pairs, read through its own `__getitem__` with a key not known, is a callable
that keeps the shape when every entry does — found once per table, not at each lookup; when one
entry does not, nothing is claimed. The program is tests/unit/values/tables.py; every shape
claimed is evaluated against torch for every key."""
import os

import pytest

from shapehint.analysis import tables
from shapehint.analysis.api import analyze_source

from .values import answer, in_context, path_of, program

NAMES = ["h", "a", "b", "c", "m", "y"]


def _values():
    return {v["name"]: v for v in answer("tables")["values"] if v["function"] == "MLP.forward"}


def _in_entry(v):
    return in_context(v, "entry:")


@pytest.mark.parametrize("name", ["a", "b", "c", "y"])
def test_every_entry_keeps_the_shape_so_the_lookup_does(name):
    import torch
    mod = program("tables")
    v = _values().get(name)
    assert v is not None, f"{name}: no shape"
    claimed = _in_entry(v)
    x = torch.randn(2, 7, 12)
    for act, mixed in [(k, "relu") for k in mod.ENTRIES] + [("gelu", k) for k in list(mod.ENTRIES) + ["mean"]]:
        with torch.no_grad():
            got = mod.entry(x, act, mixed)[NAMES.index(name)]
        assert [eval(s, {"x": x}) if isinstance(s, str) else s for s in claimed] == list(got.shape), (act, mixed)


def test_a_table_with_an_entry_that_changes_the_shape_gives_none():
    import torch
    mod = program("tables")
    x = torch.randn(2, 7, 12)
    assert mod.entry(x, "relu", "mean")[4].shape != mod.entry(x, "relu", "relu")[4].shape
    v = _values().get("m")
    assert v is None or all(s == "?" or str(s).startswith("*") for s in _in_entry(v)), v


def test_the_entries_are_probed_once_per_table(monkeypatch):
    probes = []
    keeps = tables._keeps_shape

    def counted(it, entry, fr, min_rank=0):
        probes.append(entry)
        return keeps(it, entry, fr, min_rank)

    monkeypatch.setattr(tables, "_keeps_shape", counted)
    with open(path_of("tables")) as f:
        src = f.read()
    analyze_source(src, os.path.join(os.path.dirname(path_of("tables")), "tables_once.py"))
    mod = program("tables")
    # three lookups with a key not known (two of them in one table), each table's entries once,
    # and the first entry that fails on a tensor of any rank (`mean`) once more on one of at least
    # one axis
    assert len(probes) == len(mod.ENTRIES) + len(mod.ENTRIES) + 1 + 1


def test_an_option_list_of_classes_is_no_instance_of_tuple(tmp_path):
    # `entry if isinstance(entry, tuple) else (entry, {})` with `entry` a class decides the test
    src = ("import torch\nfrom torch import nn\n\n"
           "def f(x: torch.Tensor):\n"
           "    e = nn.ReLU\n"
           "    cls, kw = e if isinstance(e, tuple) else (e, {})\n"
           "    y = cls(**kw)(x)\n"
           "    return y\n")
    p = tmp_path / "m.py"
    p.write_text(src)
    vals = {v["name"]: v["shape"] for v in analyze_source(src, str(p)).infer_json()["values"]}
    assert vals.get("y") == ["*x"]
