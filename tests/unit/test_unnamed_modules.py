"""Modules registered under names built in a loop of unknown count (`self.add_module(*stage)`
over `(f'layer{i + 1}', stage)` pairs a helper made from `zip(widths, depths)`), read back by
name in `forward` (`self.layer1`): the read is the join of what that one site registered
(analysis/unnamed_modules.py), and `zip` over lists of unknown length keeps the items it knows
(builtins.b_zip). Each claimed shape is checked against torch for several configurations."""
import torch

from shapehint.analysis.api import analyze_source

from .shape_eval import evaluated as _evaluated, run_program as _run

NET = """import torch
import torch.nn as nn


def make_stages(widths, depths, cin: int):
    stages = []
    for i, (w, d) in enumerate(zip(widths, depths)):
        blocks = [nn.Conv2d(cin, cin, 3, padding=1) for _ in range(d)]
        stages.append((f'layer{i + 1}', nn.Sequential(*blocks)))
    return stages


class Net(nn.Module):
    def __init__(self, widths: tuple, depths: tuple, cin: int = 8):
        super().__init__()
        self.stem = nn.Conv2d(3, cin, 1)
        for stage in make_stages(widths, depths, cin):
            self.add_module(*stage)
        EXTRA

    def forward(self, x: torch.Tensor):
        x = self.stem(x)
        x = self.layer1(x)
        x = self.layer2(x)
        return x
"""


def _values(src: str) -> dict:
    r = analyze_source(src, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"]
    return {(v["line"], v["name"]): v["shape"] for v in r.infer_json()["values"] if v["function"] == "Net.forward"}


def test_a_stage_registered_under_a_name_not_known_is_read_back_by_name():
    src = NET.replace("EXTRA", "pass")
    got = _values(src)
    line = src.splitlines().index("        x = self.layer1(x)") + 1
    ns = _run(src)
    x = torch.randn(2, 3, 9, 7)
    for depths in ((1, 2), (2, 1, 3)):
        for cin in (4, 8):
            m = ns["Net"]((1,) * len(depths), depths, cin)
            h = m.stem(x)
            want = {line: m.layer1(h).shape, line + 1: m.layer2(m.layer1(h)).shape}
            for ln, shape in want.items():
                assert got.get((ln, "x")) is not None, ln
                assert list(_evaluated(got[(ln, "x")], {"x": x, "cin": cin})) == list(shape)


def test_a_name_written_elsewhere_in_the_class_is_not_taken_from_the_unnamed_site():
    """`self.layer2` may be the layer the class sets under that very name: nothing is claimed."""
    src = NET.replace("EXTRA", "self.layer2 = nn.Conv2d(cin, 5, 1)")
    got = _values(src)
    line = src.splitlines().index("        x = self.layer2(x)") + 1
    assert got.get((line, "x")) is None or got[(line, "x")][1] != "cin"


DICT = """import torch
import torch.nn as nn


class Block(nn.ModuleDict):
    def __init__(self, n: int, c: int):
        super().__init__()
        for i in range(n):
            self.add_module('layer%d' % (i + 1), nn.Conv2d(c, c, 3, padding=1))

    def forward(self, x: torch.Tensor):
        for name, layer in self.items():
            x = layer(x)
        return x
"""


def test_a_containers_own_methods_are_no_module_registered_under_a_name_not_known():
    """`self.items()` of an `nn.ModuleDict` that registered its layers in a loop of unknown count
    is the container's method, never those layers."""
    r = analyze_source(DICT, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"]
    got = {(v["line"], v["name"]): v["shape"] for v in r.infer_json()["values"] if v["function"] == "Block.forward"}
    line = DICT.splitlines().index("            x = layer(x)") + 1
    ns = _run(DICT)
    x = torch.randn(2, 4, 5, 6)
    want = ns["Block"](2, 4)(x).shape
    assert list(_evaluated(got[(line, "x")], {"x": x, "c": 4})) == list(want)
