"""A Sequential of the stages a loop built, the first on its own (analysis/first_pass.py,
`downsample=i > 0`), in a list that may be empty: the join of `[]` (the range empty) and the
peeled list `[first, *later]` keeps that layout (arm_lists._layout_or_empty: empty, or the first
stages then a stack of the later; `ListV.or_empty`), so `nn.Sequential(*layers)` runs the first
stage on its input and the later ones on what it gives, joined with its input (no stage).
Before, the join kept no layout and the Sequential was a stack of a choice of the stages
(layers.Layers._repeated), whose first application ran each option on the stack's own input
and recorded it in the caller's context: a later stage given the model's input, a run no model
makes where the first stage changes the resolution (here a stride-4 stem). Each context item is
checked against torch on the meta device: it must agree with some run of that line. The stages'
width (`cin = cout`, a product the analysis cannot write) changes each pass, so the layout is
kept only because an unknown that stays unknown counts as a number (grown_lists.numbers_only)."""
import types

import pytest

from shapehint.analysis.api import analyze_source

SRC = '''from typing import Tuple

import torch
import torch.nn as nn


class Stage(nn.Module):
    def __init__(self, cin: int, cout: int, down: bool):
        super().__init__()
        self.down = nn.Conv2d(cin, cout, 2, stride=2) if down else nn.Conv2d(cin, cout, 4, stride=4)
        self.conv = nn.Conv2d(cout, cout, 3, padding=1)

    def forward(self, x):
        x = self.down(x)
        y = self.conv(x)
        return y


class Net(nn.Module):
    def __init__(self, width: int = 8, depths: Tuple[int, ...] = (2, 2)):
        super().__init__()
        layers = []
        cin = width
        for i in range(len(depths)):
            cout = width * 2 ** i
            layers += [Stage(cin, cout, down=i > 0)]
            cin = cout
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor):
        z = self.layers(x)
        return z
'''
# the same stages over `range(n)` of an int parameter (analysis/first_pass.py's own case)
SRC_N = SRC.replace("depths: Tuple[int, ...] = (2, 2)", "n: int = 2").replace("range(len(depths))", "range(n)")
DOWN, CONV = 14, 15  # `x = self.down(x)`, `y = self.conv(x)`
CONFIGS = ((8, 2, 16), (4, 1, 32), (6, 3, 64), (3, 4, 64))  # width, stages, height


def _items(src):
    out = {}
    for v in analyze_source(src, "stages.py").infer_json()["values"]:
        if v["function"] == "Stage.forward" and v["line"] in (DOWN, CONV):
            out[v["line"]] = [c["shape"] for c in v.get("contexts", []) if c["context"].startswith("Net.forward:")]
    return out


def _runs(src, torch):
    ns = {}
    exec(compile(src, "stages.py", "exec"), ns)
    runs = {DOWN: [], CONV: []}
    for width, stages, h in CONFIGS:
        arg = (1,) * stages if "depths" in src else stages
        net = ns["Net"](width, arg).to("meta")
        x = torch.empty(2, width, h, h + 4, device="meta")
        for st in net.layers:
            for line, m in ((DOWN, st.down), (CONV, st.conv)):
                m.register_forward_hook(lambda _m, _a, o, line=line, k=(width, tuple(x.shape)):
                                        runs[line].append((k, tuple(o.shape))))
        net(x)
    return runs


def _agrees(dims, width, x_shape, seen):
    env = {"x": types.SimpleNamespace(shape=x_shape), "width": width}
    return len(dims) == len(seen) and all(d == "?" or (d if isinstance(d, int) else eval(d, {}, env)) == s
                                          for d, s in zip(dims, seen))


def _wrong(src, torch):
    runs = _runs(src, torch)
    return [(line, dims) for line, items in _items(src).items() for dims in items
            if not any(_agrees(dims, w, xs, seen) for (w, xs), seen in runs[line])]


@pytest.mark.parametrize("src", [SRC, SRC_N], ids=["open_range", "range_n"])
def test_every_context_item_is_a_run(src):
    torch = pytest.importorskip("torch")
    assert _wrong(src, torch) == []


@pytest.mark.parametrize("src", [SRC, SRC_N], ids=["open_range", "range_n"])
def test_the_items_are_recorded(src):
    items = _items(src)
    assert ["x.shape[0]", "width", "x.shape[2]//4", "x.shape[3]//4"] in items[CONV]  # the first stage's own run


def test_later_stages_run_on_the_first_stages_output():
    items = _items(SRC)
    assert ["x.shape[0]", "?", "(x.shape[2]//4)//2", "(x.shape[3]//4)//2"] in items[CONV]


MAYBE_EMPTY = '''from typing import Tuple

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, cin: int = 3, depths: Tuple[int, ...] = (1, 1)):
        super().__init__()
        layers = []
        for i in range(len(depths)):
            layers.append(nn.Conv2d(cin, 16, 1) if i == 0 else nn.Conv2d(16, 16, 3, padding=1))
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor):
        z = self.layers(x)
        return z
'''


def test_a_layout_that_may_be_empty_is_joined_with_its_input():
    """`depths=()` builds no stage: `self.layers(x)` is `x`, whose channels are `cin`, not 16."""
    torch = pytest.importorskip("torch")
    (z,) = [v["shape"] for v in analyze_source(MAYBE_EMPTY, "stages.py").infer_json()["values"]
            if v["function"] == "Net.forward" and v["line"] == 16]
    ns: dict = {}
    exec(compile(MAYBE_EMPTY, "stages.py", "exec"), ns)
    for cin, depths in ((3, ()), (3, (1,)), (5, (1, 1, 1))):
        x = torch.empty(2, cin, 9, 7, device="meta")
        seen = tuple(ns["Net"](cin, depths).to("meta")(x).shape)
        assert _agrees(z, cin, tuple(x.shape), seen), (z, cin, depths, seen)
