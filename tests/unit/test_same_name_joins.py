"""Joins of objects known only by name (comprehensions.join_values): `out_chs = out_chs or in_chs`,
where a caller gives both the same `dims[0]`, is that one object on either path, as its int symbol
is; it was unknown, so every layer built with it had an unknown width. Objects of different names
still join to nothing known. The program is our own; the shapes are checked against torch."""
import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, in_chs, out_chs=None):
        super().__init__()
        out_chs = out_chs or in_chs
        self.fc = nn.Linear(in_chs, out_chs)
        self.norm = nn.LayerNorm(out_chs)

    def forward(self, x):
        x = self.fc(x)
        x = self.norm(x)
        return x


class Net(nn.Module):
    def __init__(self, dims, classes=10):
        super().__init__()
        self.block = Block(dims[0], dims[OTHER])
        self.head = nn.Linear(dims[OTHER], classes)

    def forward(self, x):
        x = self.block(x)
        x = self.head(x)
        return x
'''


def _shapes(other):
    values = analyze_source(PROGRAM.replace("OTHER", str(other)), "samenames.py").infer_json()["values"]
    out = {}
    for v in values:
        for c in v.get("contexts") or []:
            if c["context"] == "Net.forward:25":
                out[(v["function"], v["line"])] = c["shape"]
        if v["function"] == "Net.forward":
            out[(v["function"], v["line"])] = v["shape"]
    return out


def test_one_name_on_both_paths_is_that_object():
    got = _shapes(0)
    assert got[("Block.forward", 13)] == ["*x", "dims[0]"]
    assert got[("Block.forward", 14)] == ["*x", "dims[0]"]
    assert got[("Net.forward", 25)] == ["*x", "dims[0]"]
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM.replace("OTHER", "0"), "samenames.py", "exec"), ns)
    net = ns["Net"]((16, 32)).to("meta")
    out = net.block(torch.empty(2, 5, 16, device="meta"))
    assert tuple(out.shape) == (2, 5, 16)  # [*x, dims[0]]


def test_different_names_do_not_join_to_either():
    got = _shapes(1)
    # `dims[1] or dims[0]`: never dims[0] alone (a width of 0 is not built here, so dims[1]);
    # the size the layer holds may be named (held_sizes.py, unknown_sizes.py)
    assert got[("Block.forward", 14)][-1] in ("?", "dims[1]", "self.block.fc.out_features")  # (the context's self: Net)
    assert got[("Net.forward", 25)][-1] in ("?", "dims[1]", "self.block.fc.out_features")
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM.replace("OTHER", "1"), "samenames.py", "exec"), ns)
    net = ns["Net"]((16, 32)).to("meta")
    out = net.block(torch.empty(2, 5, 16, device="meta"))
    assert out.shape[-1] == net.block.fc.out_features == 32
