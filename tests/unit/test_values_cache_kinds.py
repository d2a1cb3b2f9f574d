"""A cache of one class or another (issue 28, cause 7; analysis/kind_narrowing.py): `isinstance` on
a join of instances of known classes binds the name to the admitted instances in each arm, so the
picked object's `update` runs and the lines after it are known. The program is
tests/unit/values/cache_kinds.py; every claimed shape is evaluated against torch for both kinds of
store, and a second update of the same layer is claimed twice as long (never the new length alone)."""
import pytest

from .values import answer, program, value_at


def _shape(function, line, var):
    return value_at("cache_kinds", function, line, var)


def _agrees(claimed, got, x):
    assert claimed is not None and len(claimed) == len(got), (claimed, got)
    for c, g in zip(claimed, got):
        if c != "?":
            assert (eval(c, {}, {"x": x}) if isinstance(c, str) else c) == g, (claimed, got)


@pytest.mark.parametrize("paired", [True, False])
@pytest.mark.parametrize("size", [(2, 5, 16), (1, 3, 16)])
def test_the_outputs_after_the_update_agree_with_torch(paired, size):
    import torch
    x = torch.randn(*size)
    with torch.no_grad():
        out = program("cache_kinds").Model(paired)(x)
    for var, line in (("y", 61), ("again", 63)):
        _agrees(_shape("Model.forward", line, var)["shape"], list(out[var].shape), x)


def test_the_update_line_lists_each_call_with_its_own_length():
    contexts = {c["context"]: c["shape"] for c in _shape("Attn.forward", 42, "k")["contexts"]}
    assert contexts == {"Model.forward:61": ["x.shape[0]", "x.shape[1]", 8],
                        "Model.forward:63": ["x.shape[0]", "2*x.shape[1]", 8],
                        "Given.forward:82": ["x.shape[0]", "x.shape[1]", 8],
                        "Given.forward:83": ["x.shape[0]", "2*x.shape[1]", 8]}


def test_an_arm_keeps_what_the_test_cannot_tell_apart():
    src = '''
import torch


class A:
    def get(self, x):
        return x[:1]


class B:
    def get(self, x):
        return x


class Other:
    pass


def pick(x: torch.Tensor, flag: bool):
    assert x.dim() == 2
    o = A() if flag else B()
    if not isinstance(o, A):
        y = o.get(x)
    else:
        y = o.get(x)
    if isinstance(o, (A, B)):
        z = o.get(x)
    if isinstance(o, Other):
        w = o.get(x)
    return y, z
'''
    got = {(v["line"], v["name"]): v["shape"] for v in answer("cache_kinds", src)["values"]
           if v["function"] == "pick"}
    assert got[(23, "y")] == ["x.shape[0]", "x.shape[1]"]  # (B alone: not A)
    assert got[(25, "y")] == [1, "x.shape[1]"]  # (A alone)
    assert got[(27, "z")] == ["?", "x.shape[1]"]  # both: the rows differ
    assert got[(29, "w")] == ["?", "x.shape[1]"]  # no option is an Other: the arm is left as it was


@pytest.mark.parametrize("use_cache", [True, False])
@pytest.mark.parametrize("paired", [True, False])
def test_a_store_made_only_when_asked_for_agrees_with_torch(use_cache, paired):
    import types

    import torch
    x = torch.randn(2, 5, 16)
    config = types.SimpleNamespace(use_cache=use_cache, paired=paired)
    with torch.no_grad():
        out = program("cache_kinds").Given(config)(x)
    got = {v["name"]: v["shape"] for v in answer("cache_kinds")["values"] if v["function"] == "Given.forward"}
    assert got["y"] == ["x.shape[0]", "x.shape[1]", "x.shape[1]"]
    assert got["again"] == ["x.shape[0]", "?", "?"]  # (twice as long only where a store was made)
    for var in ("y", "again"):
        _agrees(got[var], list(out[var].shape), x)
