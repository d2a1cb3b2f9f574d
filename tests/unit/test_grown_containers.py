"""Containers a loop of unknown trip count grows in place wherever the names reach them
(analysis/grown_lists.py `reachable`/`widen`, from controlflow's `_loop_once`): a ModuleList, a
Sequential or a list held in `self`'s attributes, in nested loops, become containers of unknown
length, so a later loop over them claims no single pass's sizes; a loop of known count still
unrolls exactly. Every claim is checked against torch on the meta device."""
import pytest

from shapehint.analysis.api import analyze_source

SRC = '''import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.lin = nn.Linear(cin, cout)

    def forward(self, x):
        return self.lin(x)


class Same(nn.Module):
    def __init__(self, d: int, n: int):
        super().__init__()
        self.blocks = nn.ModuleList()
        for _ in range(n):
            self.blocks.append(Block(d, d))

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        h = x
        return h


class Widening(nn.Module):
    def __init__(self, d: int, n: int):
        super().__init__()
        self.layers = []
        prev = d
        for i in range(n):
            self.layers.append(nn.Linear(prev, prev * 2))
            prev = prev * 2
        self.net = nn.Sequential(*self.layers)

    def forward(self, x):
        y = self.net(x)
        return y


class SeqGrown(nn.Module):
    def __init__(self, d: int, n: int):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(d, d))
        prev = d
        for i in range(n):
            self.seq.append(nn.Linear(prev, prev + 1))
            prev = prev + 1

    def forward(self, x):
        z = self.seq(x)
        return z


class Nested(nn.Module):
    def __init__(self, d: int, depths: list[int]):
        super().__init__()
        self.stages = nn.ModuleList()
        prev = d
        for depth in depths:
            for _ in range(depth):
                self.stages.append(Block(prev, prev * 2))
                prev = prev * 2

    def forward(self, x):
        for s in self.stages:
            x = s(x)
        w = x
        return w


class Counted(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.stages = nn.ModuleList()
        prev = d
        for i in range(3):
            self.stages.append(Block(prev, prev * 2))
            prev = prev * 2

    def forward(self, x):
        for s in self.stages:
            x = s(x)
        c = x
        return c


def run(x: torch.Tensor, n: int):
    m = Same(8, n)
    a = m(x)
    return a
'''


@pytest.fixture(scope="module")
def got():
    return {(v["function"], v["name"]): v["shape"] for v in analyze_source(SRC, "grown.py").infer_json()["values"]}


@pytest.fixture(scope="module")
def ns():
    out: dict = {}
    exec(compile(SRC, "grown.py", "exec"), out)
    return out


def _last(got, key):
    shape = got.get(key)
    return None if shape is None else shape[-1]


def _meta(torch, make, *shape):
    with torch.device("meta"):
        return make()(torch.empty(*shape)).shape


@pytest.mark.parametrize("key,make,sizes", [
    (("Widening.forward", "y"), lambda ns, n: ns["Widening"](4, n), [4, 8, 16, 32]),
    (("SeqGrown.forward", "z"), lambda ns, n: ns["SeqGrown"](4, n), [4, 5, 6, 7]),
    (("Nested.forward", "w"), lambda ns, n: ns["Nested"](4, [n, 1]), [8, 16, 32, 64]),
])
def test_a_grown_container_of_widening_layers_claims_no_width(got, ns, key, make, sizes):
    torch = pytest.importorskip("torch")
    assert [_meta(torch, lambda: make(ns, n), 2, 4)[-1] for n in range(4)] == sizes
    assert _last(got, key) in (None, "?")


def test_blocks_of_one_width_may_be_none_of_them(got, ns):
    """`n` may be 0: the input comes out as it went in, whatever `d` is."""
    torch = pytest.importorskip("torch")
    assert _meta(torch, lambda: ns["Same"](8, 0), 2, 5)[-1] == 5
    assert _meta(torch, lambda: ns["Same"](8, 2), 2, 8)[-1] == 8
    assert _last(got, ("Same.forward", "h")) in (None, "?")
    assert _last(got, ("run", "a")) in (None, "?")


def test_a_loop_of_known_count_still_unrolls_exactly(got, ns):
    torch = pytest.importorskip("torch")
    assert _meta(torch, lambda: ns["Counted"](5), 2, 5)[-1] == 40
    assert _last(got, ("Counted.forward", "c")) == "8*d"
