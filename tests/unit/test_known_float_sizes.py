"""Sizes computed through floats of known value are Python's own results, corner cases included
(`int(0.75 * 8 + 0.5)`, ties of `round`, float `//`, `%` and `**`, `round(x, 2)`, `abs`), and
`abs` of an int the analysis knows only symbolically is that int only where it is never
negative (`abs(a - b)` was `a - b`, negative for a < b). Each claim is checked against the
layer torch builds (meta tensors)."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.devicerun.compare import Unbound, safe_eval

EXPRS = [
    "int(0.75 * 8 + 0.5)", "round(2.5)", "round(0.5)", "round(3.5)", "round(11 * 1.5)", "round(24 * 0.625)",
    "int(30 * 0.1)", "int(4.35 * 100)", "int(100 * 1.1)", "int(32 * 0.35)", "round(16 / 0.35 * 0.35)",
    "int(1280 * max(1.0, 0.5))", "max(8, int(12.7))", "int(7.5 // 2)", "int(-7.5 // 2 + 10)",
    "int(9 % 4.5 + 3)", "int(-1.5 % 4 + 1)", "int(2 ** 0.5 * 100)", "int(4 ** 0.5)", "int(round(2.675, 2) * 100)",
    "int(round(7.25, 1) * 10)", "int(abs(-3.7))", "abs(-6)",
]

KNOWN = "\n".join(f"        self.l{i} = nn.Linear(4, {e})" for i, e in enumerate(EXPRS))
CALLS = "\n".join(f"        y{i} = self.l{i}(x)" for i in range(len(EXPRS)))
SRC = f'''import torch
import torch.nn as nn


class Known(nn.Module):
    def __init__(self):
        super().__init__()
{KNOWN}

    def forward(self, x):
{CALLS}
        return x


class Symbolic(nn.Module):
    def __init__(self, a: int = 3, b: int = 5):
        super().__init__()
        self.diff = nn.Linear(4, abs(a - b))
        self.total = nn.Linear(4, abs(a + b))

    def forward(self, x):
        d = self.diff(x)
        t = self.total(x)
        return d
'''


def _claimed(function):
    values = analyze_source(SRC, "floats.py").infer_json()["values"]
    return {v["name"]: v["shape"] for v in values if v["function"] == function}


def _module(name, *args):
    scope = {}
    exec(compile(SRC, "floats.py", "exec"), scope)
    return scope[name](*args).to("meta")


def test_known_floats_give_pythons_sizes():
    claimed = _claimed("Known.forward")
    m = _module("Known")
    for i, e in enumerate(EXPRS):
        want = getattr(m, f"l{i}").out_features
        assert want == eval(e)
        assert claimed[f"y{i}"][-1] == want, (e, claimed[f"y{i}"], want)


@pytest.mark.parametrize("a,b", [(3, 5), (5, 3), (4, 7), (9, 2)])
def test_abs_of_a_symbolic_difference_holds_either_way(a, b):
    import torch
    m = _module("Symbolic", a, b)
    x = torch.empty(2, 4, device="meta")
    seen = {"d": m.diff(x).shape[-1], "t": m.total(x).shape[-1]}
    claimed = _claimed("Symbolic.forward")
    for name, observed in seen.items():
        try:
            value = safe_eval(claimed[name][-1], {"a": a, "b": b})
        except Unbound:
            pytest.fail(f"{name}: {claimed[name]} names no size")
        assert value == observed, (name, claimed[name], observed)


def test_abs_of_a_size_the_facts_prove_positive_is_that_size():
    assert _claimed("Symbolic.forward")["t"][-1] == "a + b"
