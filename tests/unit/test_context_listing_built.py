"""Construction contexts do not count against the cap on a record's calling contexts
(`contexts.Listing`: at most MAX_CONTEXTS calls, construction contexts besides).

A class built by many factories (built.py) has a construction context per factory at each line
its model runs. Analysed before the class's callers, they filled the record's list first and the
generic analysis's call sites, counted against the same cap, were cut: a literal context's deep
labels so displaced T5's call sites `T5LayerCrossAttention.forward:640 via T5Model.forward:1508 …`,
whose right shapes were then no longer listed."""
import pytest

from shapehint.analysis import contexts
from shapehint.analysis.api import analyze_source

FACTORIES = "".join(f"def model{i}():\n    return Model({8 * (i + 1)})\n\n\n" for i in range(contexts.MAX_CONTEXTS))
PROGRAM = '''import torch
import torch.nn as nn


''' + FACTORIES + '''class Norm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w = nn.Parameter(torch.ones(d))

    def forward(self, x):
        v = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(v + 1e-6) * self.w


class Model(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.n1, self.n2 = Norm(d), Norm(d)

    def forward(self, x, y):
        return self.n1(x), self.n2(y)
'''
LINE_V = PROGRAM.splitlines().index("        v = x.pow(2).mean(-1, keepdim=True)") + 1
SITE = "Model.forward:%d" % (PROGRAM.splitlines().index("        return self.n1(x), self.n2(y)") + 1)


def _record():
    result = analyze_source(PROGRAM, "m.py")
    [rec] = [r for r in result.values if r.span.line == LINE_V and r.name == "v"]
    return rec


def test_the_calls_are_listed_beside_every_construction_context():
    rec = _record()
    built = [lbl for lbl, _ in rec.contexts if str(lbl).startswith("model")]
    assert len(built) >= contexts.MAX_CONTEXTS  # (as many as the cap: they filled it)
    calls = sorted(str(s) for lbl, s in rec.contexts if str(lbl) == SITE)
    assert calls == ["[*x, 1]", "[*y, 1]"]


def test_the_listed_shapes_are_torchs():
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), ns)
    seen = []
    model = ns["model0"]().to("meta")
    for m in (model.n1, model.n2):
        m.register_forward_hook(lambda mod, inp, out: seen.append(tuple(inp[0].pow(2).mean(-1, keepdim=True).shape)))
    x, y = torch.empty(2, 5, 8, device="meta"), torch.empty(3, 4, 8, device="meta")
    model(x, y)
    assert seen == [(*x.shape[:-1], 1), (*y.shape[:-1], 1)]  # ([*x, 1] and [*y, 1])
