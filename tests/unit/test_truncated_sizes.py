"""`int(...)` and `round(...)` of arithmetic on a value known only by name (a configuration's
attribute with no default, an unannotated parameter) may cut a fraction: `cfg.ratio` may be 2.5,
so `int(dim * cfg.ratio)` is not `cfg.ratio*dim` but a size named by the call itself
(Environment.truncated). Where every name is surely an int the expression stays as it was, and
an attribute used directly as a size keeps its own symbol. Each claim is evaluated as Python with
the configuration's values and compared with the layer torch builds on the meta device."""
import types

import pytest

from shapehint.analysis.api import analyze_source

SRC = '''import torch
import torch.nn as nn


class M(nn.Module):
    def __init__(self, cfg, dim: int, width: int = 4):
        super().__init__()
        self.fc1 = nn.Linear(dim, int(dim * cfg.ratio))
        self.fc2 = nn.Linear(dim, round(dim * cfg.ratio))
        self.fc3 = nn.Linear(dim, int(cfg.ratio))
        self.fc4 = nn.Linear(dim, cfg.hidden_size)
        self.fc5 = nn.Linear(dim, int(dim * width))
        self.fc6 = nn.Linear(dim, int(cfg.ratio + 1) * 2)
        self.fc7 = nn.Linear(dim, int(dim * cfg.ratio) + int(dim * cfg.ratio))

    def forward(self, x):
        a = self.fc1(x)
        b = torch.relu(self.fc2(x))
        c = self.fc3(x)
        d = self.fc4(x).float()
        e = self.fc5(x)
        f = -self.fc6(x)
        g = self.fc7(x)
        return a
'''

NAMES = ("a", "b", "c", "d", "e", "f", "g")


def _claimed(src=SRC):
    return {v["name"]: v["shape"] for v in analyze_source(src, "m.py").infer_json()["values"]
            if v["function"] == "M.forward"}


def _observed(cfg, dim):
    """{name: the last size torch gives} for the layer `fc<i>` that makes each name."""
    import torch
    scope: dict = {}
    exec(compile(SRC, "m.py", "exec"), scope)
    layers = scope["M"](cfg, dim).to("meta")
    x = torch.empty(3, dim, device="meta")
    return {n: getattr(layers, "fc%d" % i)(x).shape[-1] for i, n in enumerate(NAMES, 1)}


@pytest.mark.parametrize("ratio", [2.5, 4.0, 3, 1.7])
@pytest.mark.parametrize("dim", [5, 6])
def test_truncated_sizes_hold_for_every_configuration(ratio, dim):
    cfg = types.SimpleNamespace(ratio=ratio, hidden_size=7)
    seen = _observed(cfg, dim)
    claimed = _claimed()
    assert set(claimed) >= set(NAMES)
    for name in NAMES:
        last = claimed[name][-1]
        assert last != "?", (name, claimed[name])
        value = eval(str(last), {"int": int, "round": round, "cfg": cfg, "dim": dim, "width": 4})
        assert value == seen[name], (name, claimed[name], seen[name])


def test_names_surely_ints_keep_their_arithmetic():
    claimed = _claimed()
    assert claimed["d"][-1] == "cfg.hidden_size"
    assert claimed["e"][-1] == "dim*width"
    assert claimed["a"][-1] == "int(cfg.ratio*dim)"
    assert claimed["g"][-1] == "2*int(cfg.ratio*dim)"  # the same call names the same size


def test_a_truncation_of_an_unnamed_size_is_an_unknown_int_not_a_name_of_it():
    src = SRC.replace("int(cfg.ratio + 1) * 2", "int(cfg.ratio * x0) * 2").replace(
        "super().__init__()", "super().__init__()\n        x0 = len(cfg.items)")
    f = _claimed(src)["f"]
    assert "cfg" not in str(f[-1]) and "?" not in str(f[-1]), f  # an unknown int's own symbol
