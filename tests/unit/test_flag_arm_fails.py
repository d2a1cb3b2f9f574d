"""The arm only a flag's other value takes (flags.py), failing for every input on its path: a
layout flag's NHWC arm unpacks `B, H, W, C = x.shape`, which a caller's rank-3 `x` cannot pass.
That path raises, so what follows the `if` is the default arm's alone (controlflow._if); before,
the failed arm's lost `x` was joined in and the call's result, and every line after it, was
unknown. Checked against torch (meta): with the flag off the shapes are those claimed, with it
on the program raises there."""
import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, dim: int = 8, dyn: bool = False):
        super().__init__()
        self.dyn = dyn
        self.proj = nn.Linear(dim, dim)

    def pe(self, x):
        if self.dyn:
            B, H, W, C = x.shape
            x = x.view(B, -1, C)
        x = x * 2
        return x

    def forward(self, x):
        x = self.proj(x.reshape(2, 5, 8))
        x = self.pe(x)
        x = x + 1
        return x
'''


def _forward():
    values = analyze_source(PROGRAM, "flagfails.py").infer_json()["values"]
    return {v["line"]: v["shape"] for v in values if v["function"] == "Net.forward" and v["name"] == "x"}


def test_the_failing_arm_ends_its_path():
    got = _forward()
    assert got[20] == [2, 5, 8]
    assert got[21] == [2, 5, 8]


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "flagfails.py", "exec"), ns)
    x = torch.empty(10, 8, device="meta")
    assert tuple(ns["Net"]().to("meta")(x).shape) == (2, 5, 8)
    with pytest.raises(ValueError):
        ns["Net"](dyn=True).to("meta")(x)


OTHER = PROGRAM.replace("""            B, H, W, C = x.shape
            x = x.view(B, -1, C)""", """            x = self.wide(x)""").replace(
    "        self.proj = nn.Linear(dim, dim)\n", "        self.proj = nn.Linear(dim, dim)\n        self.wide = nn.Linear(2 * dim, dim)\n")


def test_another_failure_of_the_quiet_arm_is_still_joined():
    """A failure other than a rank's (here a layer's width; elsewhere it may rest on what the
    class holds for its defaults only, a list of heads another construction fills) does not
    end the arm's path: its values are joined, so the default's exact shape is not claimed
    past the `if`."""
    values = analyze_source(OTHER, "flagfails.py").infer_json()["values"]
    got = {v["line"]: v["shape"] for v in values if v["function"] == "Net.forward" and v["name"] == "x"}
    assert got.get(20) != [2, 5, 8]
