"""A tensor on some paths and `None` on the others joins to an optional tensor
(analysis/comprehensions.py, `join_values`), as a parameter defaulting to `None` is: a part a
string default chooses (`self.pos = None` when `pos == 'none'`, else a parameter) reads as that
tensor where a `None` test let it through, and `if self.pos is None:` is undecided. Before, the
join was unknown, and so was every shape the part reached (a ViT's `x + pos_embed`). The
programs are our own; the shapes claimed are checked against torch on the meta device."""

import torch

from shapehint.analysis.api import analyze_source

POS = """\
import torch
from torch import nn


class Pos(nn.Module):
    def __init__(self, n: int = 16, dim: int = 32, pos: str = 'learn'):
        super().__init__()
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        if pos == 'none':
            self.pos = None
        else:
            self.pos = nn.Parameter(torch.zeros(1, n + 1, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        cls = self.cls.expand(x.shape[0], -1, -1)
        if self.pos is None:
            return torch.cat([cls, x], dim=1)
        x = torch.cat([cls, x], dim=1)
        y = x + self.pos
        return y


class Bias(nn.Module):
    def __init__(self, dim: int = 8, kind: str = 'learn'):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(dim)) if kind == 'learn' else None
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b = self.bias
        z = self.proj(x)
        if b is not None:
            z = z + b
        return z


class Extra(nn.Module):
    def __init__(self, extra: int = 4, kind: str = 'learn'):
        super().__init__()
        self.extra = nn.Parameter(torch.zeros(1, extra)) if kind == 'learn' else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.extra
        if h is not None:
            x = torch.cat([x, h.expand(x.shape[0], -1)], dim=1)
        y = x
        return y
"""


def _values(function: str) -> dict:
    r = analyze_source(POS, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    return {(v["name"], v["line"]): v for v in r.infer_json()["values"] if v["function"] == function}


def _module():
    ns = {}
    exec(compile(POS, "m.py", "exec"), ns)
    return ns


def test_a_part_a_string_default_may_leave_none_is_an_optional_tensor():
    got = _values("Pos.forward")
    y = [v for (name, _), v in got.items() if name == "y"]
    assert len(y) == 1 and y[0]["shape"] == ["x.shape[0]", "x.shape[1] + 1", "dim"], y
    with torch.device("meta"):
        m = _module()["Pos"](n=16, dim=32)
        x = torch.zeros(2, 16, 32)
        assert list(m(x).shape) == [x.shape[0], x.shape[1] + 1, 32]
        assert list(_module()["Pos"](n=16, dim=32, pos='none')(x).shape) == [2, 17, 32]


def test_the_optional_part_is_the_tensor_where_a_none_test_lets_it_through():
    got = _values("Bias.forward")
    b = [v for (name, _), v in got.items() if name == "b"]
    assert len(b) == 1 and b[0]["shape"] == ["dim"], b
    zs = [v["shape"] for (name, line), v in sorted(got.items(), key=lambda kv: kv[0][1]) if name == "z"]
    assert zs and zs[-1] == ["*x", "dim"], zs
    with torch.device("meta"):
        for kind in ('learn', 'none'):
            m = _module()["Bias"](dim=8, kind=kind)
            assert list(m(torch.zeros(3, 5, 8)).shape) == [3, 5, 8]


def test_a_none_test_of_a_joined_optional_follows_both_sides():
    # a parameter's absent side is what its callers omit; nothing says the model takes this
    # one's: what follows is the join of both sides, never the absent side's `x` alone
    # (`[x.shape[0], x.shape[1]]`, wrong for the default construction)
    got = _values("Extra.forward")
    y = [v for (name, _), v in got.items() if name == "y"]
    assert len(y) == 1 and y[0]["shape"] == ["x.shape[0]", "?"], y
    with torch.device("meta"):
        assert list(_module()["Extra"](extra=4)(torch.zeros(2, 8)).shape) == [2, 12]
        assert list(_module()["Extra"](kind='none')(torch.zeros(2, 8)).shape) == [2, 8]
