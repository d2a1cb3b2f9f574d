"""A guard at the top level of a constructor (`if dim % n_heads != 0: raise`, or `assert dim %
n_heads == 0`) makes `n_heads*(dim//n_heads)` equal `dim` in the class's methods
(divisibility.py): the head split's inferred size `(dim*T)//(n_heads*(dim//n_heads))` is `T`
(HF DistilBERT's `shape(x)`). Before: the quotient stayed opaque. A guard inside an `if` (which
another construction may skip), or none at all, leaves the quotient as it is. Each shape is
checked against torch at the sizes the program runs with."""

import torch

from .program_runs import infer, run


PROGRAM = '''import torch
from torch import nn


class Cfg:
    def __init__(self, dim=32, n_heads=2):
        self.dim = dim
        self.n_heads = n_heads


class HeadSplit(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.n_heads = config.n_heads
        self.dim = config.dim
        if self.dim % self.n_heads != 0:
            raise ValueError("heads must divide dim")
        self.q_lin = nn.Linear(config.dim, config.dim)

    def forward(self, query):
        bs, q_length, dim = query.size()
        dim_per_head = self.dim // self.n_heads

        def shape(x):
            return x.view(bs, -1, self.n_heads, dim_per_head).transpose(1, 2)

        q = shape(self.q_lin(query))
        back = q.transpose(1, 2).reshape(bs, -1, self.n_heads * dim_per_head)
        return q, back


class Asserted(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        assert dim % heads == 0
        self.heads = heads
        self.head_dim = dim // heads
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, c = x.shape
        h = self.proj(x).view(b, -1, self.heads, self.head_dim)
        return h


class Flagged(nn.Module):
    def __init__(self, dim, heads, check=True):
        super().__init__()
        if check:
            if dim % heads != 0:
                raise ValueError("heads must divide dim")
        self.heads = heads
        self.head_dim = dim // heads
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, c = x.shape
        g = self.proj(x).view(b, -1, self.heads, self.head_dim)
        return g


q, back = HeadSplit(Cfg())(torch.randn(2, 16, 32))
h = Asserted(24, 3)(torch.randn(2, 5, 24))
g = Flagged(24, 3)(torch.randn(2, 5, 24))
'''


def _values(tmp_path):
    res = infer(tmp_path, PROGRAM)
    assert [d for d in res["diagnostics"] if d["severity"] == "error"] == []
    return {(v["function"], v["name"]): v["shape"] for v in res["values"]}


def _run():
    return run(PROGRAM)


def _at(shape, sizes):
    """The symbolic shape evaluated at the sizes the program ran with."""
    return [eval(str(d).replace("config.", "config_"), {}, sizes) for d in shape]


def test_a_head_split_after_a_raising_guard_keeps_the_sequence_length(tmp_path):
    got, ran = _values(tmp_path), _run()
    sizes = {"bs": 2, "q_length": 16, "config_dim": 32, "config_n_heads": 2}
    assert got[("HeadSplit.forward", "q")] == ["bs", "config.n_heads", "q_length", "config.dim//config.n_heads"]
    assert got[("HeadSplit.forward", "back")] == ["bs", "q_length", "config.dim"]
    assert _at(got[("HeadSplit.forward", "q")], sizes) == list(ran["q"].shape)
    assert _at(got[("HeadSplit.forward", "back")], sizes) == list(ran["back"].shape)


def test_an_asserted_divisibility_does_the_same(tmp_path):
    got, ran = _values(tmp_path), _run()
    shape = got[("Asserted.forward", "h")]
    assert shape[1] == "t"
    assert _at(shape, {"b": 2, "t": 5, "c": 24, "dim": 24, "heads": 3}) == list(ran["h"].shape)


def test_a_guard_inside_an_if_proves_nothing(tmp_path):
    got = _values(tmp_path)
    assert got[("Flagged.forward", "g")][1] != "t"  # (a quotient, or unknown: not claimed to be t)
    assert isinstance(_run()["g"], torch.Tensor)
