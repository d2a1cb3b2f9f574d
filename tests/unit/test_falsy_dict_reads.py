"""A dict filled under keys not known, every value seen (`done[i] = False` for each of n layers),
read by `get` with a key not known: one of its values or the fallback (dicts.any_value). Where
all of them are falsy (False, or None for a key never put), a test of the read is decided
(compare.truth on a MaybeNoneV holding False; its join with `False` on a path that did not read
the dict: maybe_none.join_falsy), so the arm a fresh cache never takes is not joined in (T5's
cross-attention `is_updated.get(layer_idx)` kept the cached keys of unknown rank). A dict one
of whose values may be truthy leaves the test open; so does `is None` of such a read. The
shapes are checked against torch by running the program."""
import pytest
import torch

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
import torch.nn as nn


class Flags:
    def __init__(self, n):
        self.done = {}
        for i in range(n):
            self.done[i] = VALUE


class M(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.n = n
        self.lin = nn.Linear(8, 4)

    def forward(self, x, k: int, use: bool):
        f = Flags(self.n) if use else None
        seen = False
        if isinstance(f, Flags):
            seen = f.done.get(k)
        if use and seen:
            y = x
        else:
            y = self.lin(x)
        if seen is None:
            z = x
        else:
            z = self.lin(x)
        return y, z


def run(x, k, use):
    m = M(3)
    y, z = m(x, k, use)
    return y, z
'''


def _shapes(value: str):
    r = analyze_source(PROGRAM.replace("VALUE", value), "m.py")
    assert not r.stats.get("internal_errors"), r.stats
    return {v.name: str(v.shape) for v in r.values if v.function == "M.forward" and v.name in ("y", "z")}


def _run(value: str, k: int, use: bool):
    scope: dict = {}
    exec(compile(PROGRAM.replace("VALUE", value), "m.py", "exec"), scope)
    return scope["run"](torch.zeros(2, 8), k, use)


def test_a_read_of_a_dict_of_falses_decides_the_test():
    got = _shapes("False")
    assert got["y"] == "[*x, 4]"  # only the arm a falsy read takes: the Linear's
    for k in (0, 2, 7):  # a key put (False) or never put (None): the Linear's arm either way
        for use in (True, False):
            y, _ = _run("False", k, use)
            assert y.shape == (2, 4)


def test_none_or_false_stays_open_to_an_is_none_test():
    assert _shapes("False")["z"] not in ("[*x, 4]", "[*x, 8]", "[*x, x.shape[-1]]")
    _, z_put = _run("False", 0, True)
    _, z_absent = _run("False", 7, True)
    assert z_put.shape == (2, 4) and z_absent.shape == (2, 8)  # both arms run


@pytest.mark.parametrize("value", ["True", "i > 0"])
def test_a_dict_that_may_hold_a_truthy_value_leaves_the_test_open(value):
    assert _shapes(value)["y"] != "[*x, 4]"
    y, _ = _run(value, 2, True)
    assert y.shape == (2, 8)  # the other arm runs
