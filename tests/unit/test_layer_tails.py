"""A Sequential of known first layers, then a list of unknown length spread after them
(`nn.Sequential(first, *[Block(c, c) for _ in range(depth - 1)])`, analysis/layer_tails.py):
calling it, or looping over it, runs the first layers in order, then some number of the rest.
Each shape claimed is evaluated under torch (meta tensors) for several constructions, the empty
tail (`depth=1`) included; a slice of the container, or one written to, keeps no layout."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

STAGE = '''import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int = 1) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride=stride, padding=1)

    def forward(self, x):
        return self.conv(x)


class Stage(nn.Module):
    def __init__(self, cin: int, cout: int, depth: int = 2) -> None:
        super().__init__()
        first = Block(cin, cout, stride=2)
        self.layers = nn.Sequential(first, *[Block(cout, cout, stride=TAIL_STRIDE) for _ in range(depth - 1)])
        EXTRA

    def forward(self, x):
        h = x
        for layer in self.layers:
            h = layer(h)
        return h

    def run(self, x):
        y = self.layers(x)
        return y

    def rest(self, x):
        z = self.layers[1:](x)
        return z
'''


def _program(tail_stride=1, extra="pass"):
    return STAGE.replace("TAIL_STRIDE", str(tail_stride)).replace("EXTRA", extra)


def _shown(src):
    res = analyze_source(src, "stage.py")
    assert not [d for d in res.diagnostics if d.severity == "error"]
    out = {}
    for v in sorted(res.infer_json()["values"], key=lambda v: v["line"]):
        out[(v["function"], v["name"])] = v["shape"]  # the last assignment: `h = layer(h)`
    return out


def _holds(shape, observed, scope) -> bool:
    """Every dim shown evaluates to the observed size (`?` claims nothing)."""
    if shape is None or len(shape) != len(observed):
        return False
    for dim, size in zip(shape, observed):
        if dim == "?":
            continue
        if (eval(dim, dict(scope)) if isinstance(dim, str) else dim) != size:
            return False
    return True


def _stage(src, cin, cout, depth):
    scope = {}
    exec(compile(src, "stage.py", "exec"), scope)
    return scope["Stage"](cin, cout, depth).to("meta")


@pytest.mark.parametrize("cin,cout,depth", [(3, 8, 1), (3, 8, 3), (16, 4, 2)])
def test_the_first_layer_then_the_tail_gives_the_stage_shape(cin, cout, depth):
    src = _program()
    shown = _shown(src)
    stage = _stage(src, cin, cout, depth)
    x = torch.zeros(2, cin, 17, 12, device="meta")
    scope = {"x": x, "cin": cin, "cout": cout}
    expected = ["x.shape[0]", "cout", "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]
    assert shown[("Stage.run", "y")] == expected
    assert shown[("Stage.forward", "h")] == expected
    assert _holds(expected, list(stage.run(x).shape), scope)
    assert _holds(expected, list(stage(x).shape), scope)


def test_a_tail_that_changes_the_shape_claims_only_what_every_depth_keeps():
    src = _program(tail_stride=2)
    shown = _shown(src)
    y = shown[("Stage.run", "y")]
    for depth in (1, 2, 4):
        stage = _stage(src, 3, 8, depth)
        x = torch.zeros(2, 3, 33, 20, device="meta")
        assert _holds(y, list(stage.run(x).shape), {"x": x, "cin": 3, "cout": 8})
    assert y[1] == "cout" and y[2] == "?"  # the depth decides the resolution


def test_a_slice_runs_no_first_layer():
    src = _program()
    z = _shown(src).get(("Stage.rest", "z"))
    stage = _stage(src, 3, 8, 3)
    x = torch.zeros(2, 8, 17, 12, device="meta")
    observed = list(stage.rest(x).shape)  # the tail alone: the resolution kept
    assert observed == [2, 8, 17, 12]
    assert z is None or _holds(z, observed, {"x": x, "cin": 3, "cout": 8})


def test_a_container_written_to_keeps_no_layout():
    src = _program(extra="self.layers.append(Block(cout, cout, stride=2))")
    y = _shown(src).get(("Stage.run", "y"))
    stage = _stage(src, 3, 8, 2)
    x = torch.zeros(2, 3, 17, 12, device="meta")
    observed = list(stage.run(x).shape)
    assert observed == [2, 8, 5, 3]
    assert y is None or _holds(y, observed, {"x": x, "cin": 3, "cout": 8})


GROWN = STAGE.split("class Stage")[0] + '''class Grown(nn.Module):
    def __init__(self, cin: int, cout: int, depth: int = 2) -> None:
        super().__init__()
        layers = [Block(cin, cout, stride=2)]
        for _ in range(1, depth):
            APPEND
        AFTER
        self.layers = nn.Sequential(*layers)

    def run(self, x):
        y = self.layers(x)
        return y
'''


def _grown(append="layers.append(Block(cout, cout))", after="pass"):
    return GROWN.replace("APPEND", append).replace("AFTER", after)


def _run_grown(src, cin, cout, depth, x):
    scope = {}
    exec(compile(src, "grown.py", "exec"), scope)
    return list(scope["Grown"](cin, cout, depth).to("meta").run(x).shape)


@pytest.mark.parametrize("cin,cout,depth", [(3, 8, 1), (3, 8, 3), (16, 4, 2)])
def test_a_list_a_loop_grew_by_one_layer_a_pass_keeps_its_first_layer(cin, cout, depth):
    """`layers = [first]; for ...: layers.append(Block(c, c))`: the Sequential of it runs the
    first layer, then the appended ones as a stack (grown_lists.settle)."""
    src = _grown()
    y = _shown(src)[("Grown.run", "y")]
    assert y == ["x.shape[0]", "cout", "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]
    x = torch.zeros(2, cin, 17, 12, device="meta")
    assert _holds(y, _run_grown(src, cin, cout, depth, x), {"x": x, "cin": cin, "cout": cout})


@pytest.mark.parametrize("src", [
    _grown(after="layers.append(Block(cout, cout, stride=2))"),  # written after the loop
    _grown(append="layers.append(Block(cout, cout)); layers.append(Block(cout, cout, stride=2))"),  # two a pass
    _grown(append="layers.append(Block(cout, cout))\n            if _ % 2:\n"
                  "                layers.append(Block(cout, cout, stride=2))"),  # one more on some passes
])
def test_a_grown_list_written_after_or_growing_by_two_keeps_no_layout(src):
    y = _shown(src).get(("Grown.run", "y"))
    for depth in (1, 2, 3):
        x = torch.zeros(2, 3, 33, 20, device="meta")
        assert y is None or _holds(y, _run_grown(src, 3, 8, depth, x), {"x": x, "cin": 3, "cout": 8})
    assert y is None or y[2] == "?"
