"""One line's shape over the paths that reached it, when their segments differ (analysis/rank_joins.line_join).

A decoder's loop `hidden = layer(hidden)` starts from an embedding of ids of unknown rank, read at
`.shape[1]` (`[ids0, ids1, *ids]`: the width may be that axis), and every later pass from the
layer's own output `[*?, H]`. Each pass's shape was listed, but the line's own shape was nothing,
so a caller that reads only the line's shape (the entry's run, the editor's first line of hover)
got none. Now it is what every pass agrees on at either end: `[*?, H]`. The program is our own;
the shape is checked against PyTorch at every rank the program accepts."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.rank_joins import line_join
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape

torch = pytest.importorskip("torch")

DECODER = '''import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.proj = nn.Linear(h, h)

    def forward(self, x):
        return self.proj(x)


class Decoder(nn.Module):
    def __init__(self, vocab, h, n):
        super().__init__()
        self.emb = nn.Embedding(vocab, h)
        self.layers = nn.ModuleList([Layer(h) for _ in range(n)])

    def forward(self, ids):
        e = self.emb(ids)
        t = e.shape[1]
        hidden = e
        for layer in self.layers:
            hidden = layer(hidden)
        return hidden
'''


def _line(name: str, line: int):
    r = analyze_source(DECODER, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    found = [v for v in r.infer_json()["values"] if v["name"] == name and v["line"] == line]
    assert len(found) == 1, found
    return found[0]["shape"]


def test_the_loop_line_keeps_the_width_every_pass_agrees_on_and_holds_at_every_rank():
    shown = _line("hidden", 25)
    assert shown == ["*?", "h"], shown
    ns = {}
    exec(compile(DECODER, "m.py", "exec"), ns)
    m = ns["Decoder"](50, 8, 2)
    for ids_shape in [(4, 3), (2, 3, 5), (7,)]:  # (7,): `e.shape[1]` is the width itself
        out = m(torch.randint(0, 50, ids_shape))
        assert out.shape[-1] == 8, (ids_shape, out.shape)


def _sh(*dims, star=None, suffix=()):
    lift = lambda ds: tuple(Expr.sym(d) if isinstance(d, str) else Expr.lift(d) for d in ds)
    return Shape(lift(dims), star, lift(suffix))


def test_known_ranks_that_differ_keep_both_ends():
    got = line_join([_sh("a", "b", "h"), _sh("a", "h")])
    assert got is not None and got.dims == _sh("a").dims and got.suffix == _sh("h").dims and got.star, got


def test_a_shape_whose_sides_may_be_one_axis_keeps_one_end():
    # `[a, *s, b]` may be one axis (a and b the same): both ends would claim two
    got = line_join([_sh("a", star="s", suffix=("b",)), _sh("a", "c", "b")])
    assert got is not None and got.dims == () and got.suffix == _sh("b").dims, got


def test_nothing_shared_is_nothing_and_equal_segments_join_as_before():
    assert line_join([_sh("a", "b"), _sh(star="s", suffix=("c",))]) is None
    same = line_join([_sh("a", star="s"), _sh("a", star="s")])
    assert same == _sh("a", star="s")
