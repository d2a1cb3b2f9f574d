"""Lists a loop grows by the same items each pass (analysis/grown_lists.py, ops/grown.py) and
the modules a counted loop registers under names not known (analysis/loop_counts.py): a dense
block's `torch.cat(features, 1)` has `C0 + n * growth` channels. Each claimed shape is checked
against torch on the meta device; the cases that must not be counted (a pass that may stop
early, a size that changes from pass to pass, a registration not made once per pass, a list
written after the loop) claim no sum."""
import types

import pytest

from shapehint.analysis.api import analyze_source

DENSE = '''import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, cin: int, g: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, g, 3, padding=1)

    def forward(self, feats: list[torch.Tensor]) -> torch.Tensor:
        return self.conv(torch.cat(feats, 1))


class Block(nn.ModuleDict):
    def __init__(self, n: int, c0: int, g: int):
        super().__init__()
        for i in range(n):
            self.add_module("layer%d" % (i + 1), Layer(c0 + i * g, g))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feats = [x]
        for name, layer in self.items():
            new = layer(feats)
            feats.append(new)
        out = torch.cat(feats, 1)
        return out


class Net(nn.Module):
    def __init__(self, c0: int = 16, g: int = 8, depth: int = 3):
        super().__init__()
        self.stem = nn.Conv2d(3, c0, 3, padding=1)
        self.block = Block(depth, c0, g)

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        y = self.block(self.stem(img))
        return y


def repeat(x: torch.Tensor, n: int):
    x = x.view(x.shape[0], x.shape[1])
    parts = [x, x]
    for i in range(n):
        y = x[:, :3] * 2
        parts.append(y)
        parts.append(x)
    joined = torch.cat(parts, 1)
    return joined
'''


def _values(src):
    return {(v["function"], v["name"]): v["shape"] for v in analyze_source(src, "dense.py").infer_json()["values"]}


def test_a_dense_block_concatenates_its_input_and_one_growth_per_layer():
    got = _values(DENSE)
    assert got[("Net.forward", "y")] == ["img.shape[0]", "depth*g + c0", "img.shape[2]", "img.shape[3]"]


def test_items_appended_each_pass_are_summed():
    got = _values(DENSE)
    assert got[("repeat", "joined")] == ["x.shape[0]", "n*x.shape[1] + n*min(3, x.shape[1]) + 2*x.shape[1]"]


@pytest.mark.parametrize("c0,g,depth", [(16, 8, 3), (5, 3, 1), (4, 7, 5)])
def test_the_dense_shape_is_torchs(c0, g, depth):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(DENSE, "dense.py", "exec"), ns)
    img = torch.empty(2, 3, 9, 11, device="meta")
    y = ns["Net"](c0, g, depth).to("meta")(img)
    want = _values(DENSE)[("Net.forward", "y")]
    env = {"img": types.SimpleNamespace(shape=img.shape), "c0": c0, "g": g, "depth": depth}
    assert list(y.shape) == [eval(d, {}, env) for d in want]


@pytest.mark.parametrize("cols,n", [(8, 2), (2, 3), (5, 0)])
def test_the_repeated_shape_is_torchs(cols, n):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(DENSE, "dense.py", "exec"), ns)
    x = torch.empty(4, cols, device="meta")
    want = _values(DENSE)[("repeat", "joined")]
    env = {"x": types.SimpleNamespace(shape=x.shape), "n": n, "min": min}
    assert list(ns["repeat"](x, n).shape) == [eval(d, {}, env) for d in want]


def _joined_channels(src):
    return _values(src)[("repeat", "joined")][1]


@pytest.mark.parametrize("change", [
    # a pass that may end early: fewer items than passes
    ("        parts.append(x)\n", "        parts.append(x)\n        if i > 1:\n            break\n"),
    # an item whose size grows from pass to pass
    ("        y = x[:, :3] * 2\n", "        y = torch.cat([x, x], 1)\n        x = y\n"),
    # written after the loop
    ("    joined = torch.cat(parts, 1)\n", "    parts.append(x)\n    joined = torch.cat(parts, 1)\n"),
    ("    joined = torch.cat(parts, 1)\n", "    del parts[0]\n    joined = torch.cat(parts, 1)\n"),
    ("    joined = torch.cat(parts, 1)\n", "    parts[0] = torch.zeros(4, 100)\n    joined = torch.cat(parts, 1)\n"),
])
def test_no_sum_where_the_passes_do_not_append_alike(change):
    assert _joined_channels(DENSE) != "?"
    assert _joined_channels(DENSE.replace(*change)) == "?"


def test_a_registration_made_on_some_passes_only_is_not_counted():
    src = DENSE.replace('            self.add_module("layer%d" % (i + 1), Layer(c0 + i * g, g))',
                        '            if i % 2 == 0:\n'
                        '                self.add_module("layer%d" % (i + 1), Layer(c0 + i * g, g))')
    assert _values(src)[("Net.forward", "y")][1] == "?"


def test_registrations_of_a_loop_inside_another_are_not_counted():
    src = DENSE.replace('        for i in range(n):\n            self.add_module',
                        '        for k in range(2):\n          for i in range(n):\n            self.add_module') \
        .replace('"layer%d" % (i + 1)', '"layer%d_%d" % (k, i + 1)')
    assert _values(src)[("Net.forward", "y")][1] == "?"
