"""The first pass of `for i in range(len(depths))` over a sequence of unknown length
(`depths: Tuple[int, ...]`), whose body tells the first stage apart (`down=i > 0`) and keeps a
record of each stage on the model (`self.info += [dict(...)]`): analysis/first_pass.py runs it
on its own (`_open_range`, `_inert`), so the first stage's block sees its own input. Each
claimed shape is checked against torch on the meta device."""
import ast
import types

import pytest

from shapehint.analysis import first_pass
from shapehint.analysis.api import analyze_source

SRC = '''from typing import Tuple

import torch
import torch.nn as nn


class Stage(nn.Module):
    def __init__(self, cin: int, cout: int, down: bool):
        super().__init__()
        self.down = nn.Conv2d(cin, cout, 2, stride=2) if down else nn.Identity()
        self.conv = nn.Conv2d(cout, cout, 3, padding=1)

    def forward(self, x):
        x = self.down(x)
        y = self.conv(x)
        return y


class Net(nn.Module):
    def __init__(self, width: int = 8, depths: Tuple[int, ...] = (2, 2)):
        super().__init__()
        self.info = []
        layers = []
        cin = width
        for i in range(len(depths)):
            cout = width * 2 ** i
            layers += [Stage(cin, cout, down=i > 0)]
            cin = cout
            self.info += [dict(chs=cout, module=f"layers.{i}")]
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor):
        z = self.layers(x)
        return z
'''
DOWN, CONV = 14, 15  # `x = self.down(x)`, `y = self.conv(x)`
LAYERS = 33  # `z = self.layers(x)`
# in Net.forward's names: the first stage's output; the second stage's downsampled input
FIRST = ["x.shape[0]", "width", "x.shape[2]", "x.shape[3]"]
SECOND = ["x.shape[0]", "?", "x.shape[2]//2", "x.shape[3]//2"]


def _contexts(line, name="x"):
    for v in analyze_source(SRC, "stages.py").infer_json()["values"]:
        if v["line"] == line and v["name"] == name and v["function"] == "Stage.forward":
            return [c["shape"] for c in v.get("contexts", []) if c["context"] == f"Net.forward:{LAYERS}"]
    return []


def _agrees(dims, x_shape, width, seen):
    env = {"x": types.SimpleNamespace(shape=x_shape), "width": width}
    return len(dims) == len(seen) and all(d == "?" or (d if isinstance(d, int) else eval(d, {}, env)) == s
                                          for d, s in zip(dims, seen))


def test_the_first_stage_sees_its_own_input():
    torch = pytest.importorskip("torch")
    assert FIRST in _contexts(CONV, "y")
    assert SECOND in _contexts(DOWN)
    ns = {}
    exec(compile(SRC, "stages.py", "exec"), ns)
    for width, depths, h in ((8, (2, 2), 16), (4, (1,), 9), (6, (1, 1, 1), 12), (3, (2, 1), 7)):
        net = ns["Net"](width, depths).to("meta")
        first, second = [], []
        net.layers[0].conv.register_forward_hook(lambda m, a, out: first.append(tuple(out.shape)))
        if len(depths) > 1:
            net.layers[1].down.register_forward_hook(lambda m, a, out: second.append(tuple(out.shape)))
        x = torch.empty(2, width, h, h + 2, device="meta")
        net(x)
        assert _agrees(FIRST, tuple(x.shape), width, first[0])
        assert not second or _agrees(SECOND, tuple(x.shape), width, second[0])


def test_every_item_is_some_stage_s_run():
    # (the stages' list keeps its layout past the join with `[]`, arm_lists._layout_or_empty: the
    # later stages run on the first stage's output, never the first on a joined input)
    torch = pytest.importorskip("torch")
    items = {line: _contexts(line, name) for line, name in ((DOWN, "x"), (CONV, "y"))}
    assert SECOND in items[CONV] and ["x.shape[0]", "width", "?", "?"] not in items[CONV]
    ns = {}
    exec(compile(SRC, "stages.py", "exec"), ns)
    runs = {DOWN: [], CONV: []}  # (model input, width, the line's shape) of every stage's run
    for width, depths, h in ((8, (2, 2), 16), (4, (1,), 9), (6, (1, 1, 1), 12), (3, (2, 1), 7)):
        net = ns["Net"](width, depths).to("meta")
        x = torch.empty(2, width, h, h + 2, device="meta")
        for stage in net.layers:
            for line, m in ((DOWN, stage.down), (CONV, stage.conv)):
                m.register_forward_hook(lambda _m, _a, out, line=line, k=(tuple(x.shape), width):
                                        runs[line].append(k + (tuple(out.shape),)))
        net(x)
    for line, dims in items.items():
        assert dims and all(any(_agrees(d, *run) for run in runs[line]) for d in dims)


def test_without_the_open_range_the_stages_are_a_join(monkeypatch):
    monkeypatch.setattr(first_pass, "_open_range", lambda it, st: False)
    assert FIRST not in _contexts(CONV, "y")
    assert SECOND not in _contexts(DOWN)


def _body(src):
    return ast.parse(f"for i in range(n):\n    {src}\n").body[0].body


@pytest.mark.parametrize("stmt, registers", [
    ("self.info += [dict(chs=c, module=f'layers.{i}')]", False),
    ("self.info = {'chs': c}", False),
    ("self.names += ['a', f'b{i}']", False),
    ("self.cur = d if i == 0 else c", True),
    ("self.blocks += [Block(c)]", True),  # a ModuleList's += registers
    ("self.last = Block(c)", True),
])
def test_which_attribute_writes_register(stmt, registers):
    assert first_pass._registers(_body(stmt)) is registers
