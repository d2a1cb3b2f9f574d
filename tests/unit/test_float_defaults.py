"""An attribute read with a float default (`getattr(cfg, "mlp_ratio", 4.0)`) may be a float: it
is not an int's symbol, so `int(dim * ratio)` is not shown as `cfg.mlp_ratio*dim` (a ratio of 2.5
and a width of 5 make 12 features, not 12.5). An int default keeps the attribute's symbol, as
before. Each claim is checked against the layer torch builds for several configurations."""
import types

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.devicerun.compare import Unbound, safe_eval

SRC = '''import torch
import torch.nn as nn


class Mlp(nn.Module):
    def __init__(self, cfg, dim: int):
        super().__init__()
        f = getattr(cfg, "mlp_ratio", 4.0)
        self.fc1 = nn.Linear(dim, int(dim * f))
        self.fc2 = nn.Linear(dim, int(dim // f))
        self.fc3 = nn.Linear(dim, round(dim * f))
        self.fc4 = nn.Linear(dim, int(f) * dim)
        g = getattr(cfg, "groups", 2)
        self.fc5 = nn.Linear(dim, dim * g)

    def forward(self, x):
        a = self.fc1(x)
        b = self.fc2(x)
        c = self.fc3(x)
        d = self.fc4(x)
        e = self.fc5(x)
        return a
'''

NAMES = ("a", "b", "c", "d", "e")


def _claimed():
    values = analyze_source(SRC, "mlp.py").infer_json()["values"]
    return {v["name"]: v["shape"] for v in values if v["function"] == "Mlp.forward"}


def _observed(cfg, dim):
    import torch
    scope = {}
    exec(compile(SRC, "mlp.py", "exec"), scope)
    m = scope["Mlp"](cfg, dim).to("meta")
    x = torch.empty(3, dim, device="meta")
    return {n: list(getattr(m, f"fc{i + 1}")(x).shape) for i, n in enumerate(NAMES)}


@pytest.mark.parametrize("ratio", [2.5, 4.0, 3])
@pytest.mark.parametrize("dim", [5, 6])
def test_sizes_from_a_float_default_hold_for_every_configuration(ratio, dim):
    cfg = types.SimpleNamespace(mlp_ratio=ratio, groups=3)
    seen = _observed(cfg, dim)
    env = {"dim": dim, "cfg.mlp_ratio": ratio, "cfg.groups": 3}
    for name, shape in _claimed().items():
        if name not in seen or shape is None:
            continue
        last = shape[-1]
        if last == "?":
            continue
        try:
            value = safe_eval(last, env) if isinstance(last, str) else last
        except Unbound:
            continue  # a size the analysis does not name: unknown, not wrong
        assert value == seen[name][-1], (name, shape, seen[name])


def test_a_float_default_is_not_an_int_symbol_but_an_int_default_is():
    claimed = _claimed()
    assert "cfg.mlp_ratio" not in " ".join(str(d) for d in claimed["a"])
    assert claimed["e"][-1] == "cfg.groups*dim"
