"""`a, b = x.chunk(2, dim=1)` of a size not known (ShuffleNet's block, its input of unknown rank):
the chunks are a list of unknown length (a size 1 gives one piece), but the paths that get past
the unpacking had exactly two pieces, whose sizes are then exact (ops/pieces.py). Each inferred
shape is checked against torch at sizes even and odd; unpacking into another number of names
claims nothing."""

import torch

from .program_runs import infer, run

PROGRAM = '''import torch
from torch import nn, Tensor


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 1)

    def forward(self, x: Tensor) -> Tensor:
        x1, x2 = x.chunk(2, dim=1)
        out = torch.cat((x1, self.conv(x2)), dim=1)
        return out


def thirds(x: Tensor):
    u, v, w = x.chunk(3, dim=-1)
    return u, v, w


def wrong_count(x: Tensor):
    m = x.chunk(2, dim=1)
    p, q, r = m
    return p
'''


def _shapes(res, function):
    return {v["name"]: v["shape"] for v in res["values"] if v["function"] == function}


def _sizes(shape, x):
    return [eval(d, {}, {"x": x}) for d in shape]


def test_two_chunks_unpacked_are_exact(tmp_path):
    res = infer(tmp_path, PROGRAM)
    assert [d for d in res["diagnostics"] if d["severity"] == "error"] == []
    got = _shapes(res, "Block.forward")
    ns = run(PROGRAM)
    for channels in (6, 7):  # (7: the first piece is the longer one)
        x = torch.randn(2, channels, 5, 3)
        x1, x2 = x.chunk(2, dim=1)
        assert _sizes(got["x1"], x) == list(x1.shape)
        assert _sizes(got["x2"], x) == list(x2.shape)
        out = ns["Block"](x2.shape[1])(x)
        assert [eval(d, {}, {"x": x, "c": x2.shape[1]}) for d in got["out"]] == list(out.shape)


def test_three_chunks_of_an_unknown_rank(tmp_path):
    res = infer(tmp_path, PROGRAM)
    got = _shapes(res, "thirds")
    for last in (7, 9, 11):  # (7: pieces 3, 3, 1)
        x = torch.randn(2, 4, last)
        u, v, w = x.chunk(3, dim=-1)
        for name, t in (("u", u), ("v", v), ("w", w)):
            assert got[name][0] == "*x"
            assert _sizes(got[name][1:], x) == list(t.shape[2:])


def test_another_count_claims_nothing(tmp_path):
    assert _shapes(infer(tmp_path, PROGRAM), "wrong_count") == {}
