"""Layers and creations built from sizes the analysis lost (`for cnf in block_setting:` over a
list of unknown length, each item's width unknown; a padding that is one value on one path and
another on the other): what they give still has the shape of everything else they know.

- `nn.Conv2d(w, w, 7, padding=3, groups=w)`: in/out channels and groups lost, the batch and the
  spatial sizes known (ops/families/conv.py, `_cfg` with `size_or_fresh`);
- `nn.Conv2d(w, 2 * w, 2, stride=2, padding=p)` with `p` lost: batch known, the rest not (`LOST`);
- `nn.LayerNorm(w)` with `w` of unknown kind: the input's shape, unchecked (norm.py, `_given`);
- `torch.ones(w, 1, 1)`, `torch.zeros((w, 5))`: each size listed one by one is an int, the lost
  one a size of its own (creation.py, `_lost_ints`); a lone value of unknown kind may be the
  sequence itself and stays unknown.

On main these were all unknown, and so was everything after them (a ConvNeXt's stages and
head). Every claimed dim is checked against torch running the same program (meta tensors)."""
import torch

from .program_runs import infer
from .shape_eval import evaluated, run_program

PROGRAM = """import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim, pad):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim)
        self.scale = nn.Parameter(torch.ones(dim, 1, 1))
        self.table = torch.zeros((dim, 5))
        self.down = nn.Conv2d(dim, 2 * dim, 2, stride=2, padding=pad)

    def forward(self, x):
        a = self.dw(x)
        b = self.norm(a.permute(0, 2, 3, 1))
        c = self.scale * a
        d = self.down(a)
        t = self.table
        return a, b, c, d, t


def run(x, widths: list, pads: list):
    out = []
    for w, p in zip(widths, pads):
        y = x.new_zeros(x.shape[0], w, x.shape[2], x.shape[3])
        a, b, c, d, t = Block(w, p)(y)
        out.append((a, b, c, d, t))
    return out


def lone(sizes: list):
    for n in sizes:
        u = torch.ones(n)
        v = torch.ones(n, 2)
    return u, v
"""

NAMES = ("a", "b", "c", "d", "t")


def _values(out, function):
    return {v["name"]: v["shape"] for v in out["values"] if v["function"] == function}


def test_lost_widths_and_paddings_keep_the_dims_they_do_not_touch(tmp_path):
    vals = _values(infer(tmp_path, PROGRAM), "run")
    assert vals["a"] == ["x.shape[0]", "?", "x.shape[2]", "x.shape[3]"]
    assert vals["b"] == ["x.shape[0]", "x.shape[2]", "x.shape[3]", "?"]
    assert vals["c"] == ["x.shape[0]", "?", "x.shape[2]", "x.shape[3]"]
    assert vals["d"] == ["x.shape[0]", "?", "?", "?"]
    assert vals["t"] == ["?", 5]
    with torch.device("meta"):
        x = torch.empty(2, 3, 9, 10)
        passes = run_program(PROGRAM)["run"](x, [4, 6, 8], [1, 0, (1, 0)])
    for shapes in passes:
        for name, t in zip(NAMES, shapes):
            claim = evaluated(vals[name], {"x": x})
            assert all(c is None or c == o for c, o in zip(claim, t.shape)), (name, claim, list(t.shape))
            assert len(claim) == t.dim()


def test_a_lone_size_of_unknown_kind_stays_unknown(tmp_path):
    # (`torch.ones(n)`: `n` may be an int or a sequence, so neither the rank nor the sizes are
    # known; listed with another size, it is an int)
    vals = _values(infer(tmp_path, PROGRAM), "lone")
    assert vals.get("u") is None
    assert vals["v"] == ["?", 2]
