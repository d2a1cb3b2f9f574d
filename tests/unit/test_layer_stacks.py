"""Layer containers of unknown length built from one layer (ModuleV.elem): the loop forms real
code uses over them. The case programs tests/cases/layer_stack_depth_unknown.py and
bug_layer_stack_width.py check the same against torch."""
from shapehint.analysis.api import analyze_source

SRC = '''import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Net(nn.Module):
    def __init__(self, depth: int):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(32, 32) for _ in range(depth)])
        self.norms = nn.ModuleList([nn.LayerNorm(32) for _ in range(depth)])
        self.heads = nn.ModuleDict({"a": nn.Linear(32, 2)})

    def forward(self, x: Float[Tensor, "B 32"]):
        for layer, norm in zip(self.layers, self.norms):
            x = norm(layer(x))
        for k, layer in enumerate(self.layers[1:]):
            x = layer(x)
        y = self.layers[0](x)
        return y
'''


def _shapes(r):
    return {(v["line"], v["name"]): v["shape"] for v in r.infer_json()["values"]}


def test_zip_slices_and_indexes_of_a_layer_stack():
    got = _shapes(analyze_source(SRC, "net.py"))
    assert got[(16, "x")] == ["B", 32] and got[(18, "x")] == ["B", 32] and got[(19, "y")] == ["B", 32]


def test_a_layer_stack_applied_to_the_wrong_width_is_an_error():
    r = analyze_source(SRC.replace('"B 32"', '"B 16"'), "net.py")
    assert [(d.line, d.code) for d in r.diagnostics if d.severity == "error"] == [(16, "SH101")]


def test_hover_names_a_container_by_what_it_holds():
    src = SRC + '''

class Two(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
        self.blocks = nn.ModuleList([Net(3) for _ in range(4)])
'''
    shown = {v.name: v.text for v in analyze_source(src, "net.py").values if v.kind == "layer"}
    assert shown["self.layers"] == "ModuleList(? × Linear(in_features=32, out_features=32, bias=True))"
    assert shown["self.seq"] == "Sequential(Linear(in_features=2, out_features=3, bias=True), ReLU())"
    assert shown["self.blocks"] == "ModuleList(4 × Net instance)"
    assert shown["self.heads"] == "ModuleDict(a)"


def test_adding_to_a_list_of_unknown_length_widens_its_element():
    """`outs.append(t)` on a list whose length is unknown kept the old element: `outs[-1]` was
    taken for one of the first items, and `outs[-1] + torch.zeros(5)` a false broadcast error."""
    src = '''import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


def f(x: Float[Tensor, "2 8"], n: int):
    outs = [x for _ in range(n)]
    outs.append(torch.zeros(5))
    return outs[-1] + torch.zeros(5)


class Net(nn.Module):
    def __init__(self, depth: int):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(depth)])
        self.layers.append(nn.Linear(4, 8))

    def forward(self, x: Float[Tensor, "2 4"]):
        for layer in self.layers:
            x = layer(x)  # layers of two kinds: which one runs first is not known here
        return x
'''
    r = analyze_source(src, "f.py")
    assert not [d for d in r.diagnostics if d.severity == "error"]


def test_reversed_and_list_of_a_layer_stack_keep_its_layer():
    src = '''import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Net(nn.Module):
    def __init__(self, depth: int):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(8, 8) for _ in range(depth)])

    def forward(self, x: Float[Tensor, "B 8"]):
        for block in reversed(self.blocks):
            y = block(x)
        for block in list(self.blocks):
            z = block(y)
        return z
'''
    got = _shapes(analyze_source(src, "net.py"))
    assert got[(14, "y")] == ["B", 8] and got[(16, "z")] == ["B", 8]


def test_len_of_a_list_grown_a_known_number_of_times():
    src = '''import torch


def f(x: torch.Tensor, n: int):
    assert x.shape == (2, 3)
    outs = []
    for i in range(n):
        outs.append(x)
    y = torch.zeros(len(outs), 3)
    return y
'''
    assert [v["shape"] for v in analyze_source(src, "f.py").infer_json()["values"] if v["name"] == "y"] == [["n", 3]]
