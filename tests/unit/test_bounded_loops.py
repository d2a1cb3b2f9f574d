"""Sequences of at most N known items (analysis/bounded_loops.py): a `zip` of a known-length
sequence with one of unknown length, and a `for` over it that runs pass by pass (item i in pass
i) but may stop before any pass — what follows is the join of "stopped after k passes". Each
claimed shape is checked against torch on the meta device, with more items, as many, and fewer
than the known sequence has."""
import ast
import types

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.bounded_loops import runs, zipped
from shapehint.shapes.expr import Expr
from shapehint.shapes.values import IntV, ListV, UnknownV

SRC = '''import torch
import torch.nn as nn
from typing import Tuple


def make(layers, channels):
    stages = []
    cin = 3
    for i, (c, n) in enumerate(zip(channels, layers)):
        stages.append((f"layer{i + 1}", nn.Conv2d(cin, c, 3, padding=1)))
        cin = c
    return stages, cin


class Net(nn.Module):
    def __init__(self, layers: Tuple[int, ...]):
        super().__init__()
        stages, cin = make(layers, (8, 16, 32))
        for st in stages:
            self.add_module(*st)
        self.width = cin

    def forward(self, x):
        a = self.layer1(x)
        b = self.layer2(a)
        w = torch.zeros(x.shape[0], self.width)
        return b, w


class Inline(nn.Module):
    def __init__(self, layers: Tuple[int, ...]):
        super().__init__()
        cin = 2
        for i, (c, n) in enumerate(zip((4, 6), layers)):
            if n == 0:
                break
            self.add_module(f"s{i}", nn.Conv2d(cin, c, 1))
            cin = c

    def forward(self, x):
        a = self.s0(x)
        b = self.s1(a)
        return b
'''


def _values():
    return {(v["function"], v["name"]): v["shape"] for v in analyze_source(SRC, "bounded.py").infer_json()["values"]}


def _run(cls, args, x_shape, built=None):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "bounded.py", "exec"), ns)
    m = ns[cls](*args).to("meta")
    if built is not None:
        built.append(m)
    return m(torch.empty(*x_shape, device="meta"))


def _agrees(got, want, x_shape, me=None):
    env = {"x": types.SimpleNamespace(shape=x_shape), "self": me}
    assert len(got) == len(want)
    for g, d in zip(got, want):
        assert d == "?" or g == (d if isinstance(d, int) else eval(d, {}, env))


def test_each_stage_keeps_its_own_width():
    v = _values()
    assert v[("Net.forward", "a")] == ["x.shape[0]", 8, "x.shape[2]", "x.shape[3]"]
    assert v[("Net.forward", "b")] == ["x.shape[0]", 16, "x.shape[2]", "x.shape[3]"]


def test_what_the_last_pass_left_is_not_claimed():
    # stopped after 2 passes the width is 16, after 3 it is 32: a join, never the last item's;
    # the instance holds it as `self.width`, which names it (held_sizes.py)
    assert _values()[("Net.forward", "w")] == ["x.shape[0]", "self.width"]


@pytest.mark.parametrize("layers", [(1, 1), (1, 1, 1), (1, 1, 1, 1, 1)])
def test_the_stages_are_torchs(layers):
    built = []
    b, w = _run("Net", (layers,), (2, 3, 5, 7), built)
    v = _values()
    _agrees(b.shape, v[("Net.forward", "b")], (2, 3, 5, 7))
    _agrees(w.shape, v[("Net.forward", "w")], (2, 3, 5, 7), built[0])
    assert w.shape[1] == {2: 16, 3: 32, 5: 32}[len(layers)]


def test_a_pass_that_may_break_keeps_the_passes_before_it():
    v = _values()
    assert v[("Inline.forward", "a")] == ["x.shape[0]", 4, "x.shape[2]", "x.shape[3]"]
    assert v[("Inline.forward", "b")] == ["x.shape[0]", 6, "x.shape[2]", "x.shape[3]"]


@pytest.mark.parametrize("layers", [(1, 1), (1, 1, 1)])
def test_the_inline_stages_are_torchs(layers):
    b = _run("Inline", (layers,), (3, 2, 4, 5))
    _agrees(b.shape, _values()[("Inline.forward", "b")], (3, 2, 4, 5))


def test_a_missing_stage_is_not_claimed_present_by_an_error():
    # with one item the second stage is absent: reading it raises; the analysis reports nothing
    assert not [d for d in analyze_source(SRC, "bounded.py").diagnostics if d.severity == "error"]


def test_zip_is_at_most_the_shortest_known_length():
    one, two = IntV(Expr.const(1)), IntV(Expr.const(2))
    z = zipped([[one, two], None, [two, one, one]], [UnknownV("a"), one, UnknownV("c")])
    assert isinstance(z, ListV) and z.items is None and len(z.upto) == 2
    assert z.upto[1].items == (two, one, one)


def test_zip_of_sequences_all_unknown_stays_unknown():
    assert isinstance(zipped([None, None], [UnknownV("a"), UnknownV("b")]), UnknownV)
    assert zipped([None, None], [IntV(Expr.const(1)), UnknownV("b")]).upto == ()


def test_a_loop_with_an_else_is_not_run_pass_by_pass():
    loop = ast.parse("for a in xs:\n    pass\nelse:\n    pass\n").body[0]
    bounded = ListV(None, IntV(Expr.const(1)), upto=(IntV(Expr.const(1)),))
    assert not runs(bounded, loop)
    assert runs(bounded, ast.parse("for a in xs:\n    pass\n").body[0])


SRC_LIST = '''import torch
import torch.nn as nn
from typing import Tuple


class Blocks(nn.Module):
    def __init__(self, layers: Tuple[int, ...]):
        super().__init__()
        self.blocks = nn.ModuleList()
        cin = 3
        for c, n in zip((8, 16, 32), layers):
            self.blocks.append(nn.Conv2d(cin, c, 1))
            cin = c

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        y = x
        return y
'''


@pytest.mark.parametrize("layers", [(1,), (1, 1), (1, 1, 1)])
def test_a_module_list_the_passes_fill_in_place_is_not_all_their_items(layers):
    # filled in place, no arm puts it back: of unknown length past the loop, never three layers
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC_LIST, "blocks.py", "exec"), ns)
    y = ns["Blocks"](layers).to("meta")(torch.empty(2, 3, 5, 7, device="meta"))
    got = {(v["function"], v["name"]): v["shape"]
           for v in analyze_source(SRC_LIST, "blocks.py").infer_json()["values"]}[("Blocks.forward", "y")]
    assert got[1] == "?"
    _agrees(y.shape, got, (2, 3, 5, 7))


SRC_MORE = '''import torch
import torch.nn as nn
from typing import Tuple


class More(nn.Module):
    def __init__(self, layers: Tuple[int, ...]):
        super().__init__()
        convs = []
        cin = 3
        for c, n in zip((8, 16), layers):
            convs.append((nn.Conv2d(cin, c, 1), c))
            cin = c
        convs.append((nn.Conv2d(cin, 4, 1), 4))
        for conv, c in convs:
            self.add_module(f"c{c}", conv)

    def forward(self, x):
        y = self.c8(x)
        return y
'''


def test_a_list_written_past_the_loop_is_no_longer_bounded():
    # `append` after the loop adds an item no pass made: the next loop is no pass-by-pass one
    # (which would register c8 and c16 but never c4)
    from shapehint.analysis import bounded_loops
    seen = []
    run = bounded_loops.run_loop
    try:
        bounded_loops.run_loop = lambda cf, st, fr, it: seen.append(st.lineno) or run(cf, st, fr, it)
        analyze_source(SRC_MORE, "more.py").infer_json()
    finally:
        bounded_loops.run_loop = run
    assert 11 in seen and 15 not in seen
