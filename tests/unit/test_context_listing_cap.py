"""A record lists each calling context up to `contexts.MAX_CONTEXTS`; a group the cap cuts is
not listed at all (`contexts.Listing`). An encoder-decoder's norm runs in a dozen distinct call
chains of one entry (each stack's blocks, then its final norm): at a cap of 8 the later stacks'
chains were cut, so the decoder's feed-forward and final norms of transformers' T5 had no
context and their records only the generic `[*x, 1]`."""
import pytest

from shapehint.analysis import contexts
from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
import torch.nn as nn


class Norm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w = nn.Parameter(torch.ones(d))

    def forward(self, x):
        v = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(v + 1e-6) * self.w


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.n1, self.n2, self.n3 = Norm(d), Norm(d), Norm(d)

    def forward(self, x):
        x = x + self.n1(x)
        x = x + self.n2(x)
        return self.n3(x)


class Stack(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.block = Block(d)
        self.final = Norm(d)

    def forward(self, x):
        return self.final(self.block(x))


class Model(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.enc, self.mid, self.dec = Stack(d), Stack(d), Stack(d)

    def forward(self, a, b, c):
        assert a.shape == (2, 12, 32); assert b.shape == (2, 8, 32); assert c.shape == (3, 5, 32)
        return self.enc(a), self.mid(b), self.dec(c)
'''
LINE_V = 11  # v = x.pow(2).mean(-1, keepdim=True)
ENTRY = {"a": (2, 12, 32), "b": (2, 8, 32), "c": (3, 5, 32)}
CHAINS = (("Stack.forward:33", "Block.forward:21"), ("Stack.forward:33", "Block.forward:22"),
          ("Stack.forward:33", "Block.forward:23"), ("Stack.forward:33",))


def _listed():
    result = analyze_source(PROGRAM, "m.py")
    [rec] = [r for r in result.values if r.span.line == LINE_V and r.name == "v"]
    out = {}
    for label, shape in rec.contexts:
        via = contexts.via_of(label)
        if via and via[0] == "Model.forward:43":
            out.setdefault(tuple(via[1:]), set()).add(str(shape))
    return out


def test_every_call_chain_of_an_entry_with_a_dozen_is_listed():
    listed = _listed()
    assert len(CHAINS) * len(ENTRY) > 8  # more than the former cap
    for chain in CHAINS:
        assert listed.get(chain) == {"[%s.shape[0], %s.shape[1], 1]" % (p, p) for p in ENTRY}, chain


def test_the_listed_shapes_are_torchs():
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), ns)
    seen = []
    model = ns["Model"](32).to("meta")
    for m in model.modules():
        if isinstance(m, ns["Norm"]):
            m.register_forward_hook(lambda mod, inp, out: seen.append(tuple(inp[0].pow(2).mean(-1, keepdim=True).shape)))
    model(*(torch.empty(s, device="meta") for s in ENTRY.values()))
    assert len(seen) == len(CHAINS) * len(ENTRY)
    assert sorted(set(seen)) == sorted((s[0], s[1], 1) for s in ENTRY.values())
