"""`.reshape(sizes)` and `.view(sizes)` of a value the analysis lost are a tensor of those sizes
(analysis/unknown_receivers.py): attention code hands q, k, v to a kernel of another package and
reshapes what comes back (`out.reshape(bs, q_len, heads * dim)`). Before, the unknown kernel's
result made that line and everything after it unknown. Programs are our own; claimed shapes
are checked against PyTorch with a stand-in kernel."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

SRC = '''import torch
from torch import nn
from some_kernels_nobody_has import attention_kernel


class Attn(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        bs, t, d = x.shape
        q, k, v = self.qkv(x).view(bs, t, 3, self.heads, d // self.heads).unbind(2)
        o = attention_kernel(q, k, v)
        merged = o.reshape(bs, t, d)
        loose = o.reshape(bs, -1)
        viewed = o.view(bs, t, d)
        as_bytes = o.view(torch.uint8)
        y = self.out(merged)
        return y
'''


def _values(src):
    r = analyze_source(src, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    return {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["function"] == "Attn.forward"}


def test_reshape_of_a_lost_value_has_the_sizes_given():
    vals = _values(SRC)
    assert vals["merged"] == ["bs", "t", "d"], vals
    assert vals["y"] == ["bs", "t", "dim"], vals
    assert vals["loose"][0] == "bs" and vals["loose"][1] == "?", vals
    # `view` with sizes as `reshape`; with a dtype (it changes the last axis) nothing claimed
    assert vals["viewed"] == ["bs", "t", "d"], vals
    assert vals.get("as_bytes") is None, vals

    def attention_kernel(q, k, v):  # a stand-in: (bs, t, heads, head_dim) in and out
        return torch.softmax(q @ k.transpose(-1, -2), -1) @ v
    scope = {}
    exec(compile(SRC.replace("from some_kernels_nobody_has import attention_kernel\n", ""), "m.py", "exec"),
         scope)
    scope["attention_kernel"] = attention_kernel
    m = scope["Attn"](dim=12, heads=3)
    x = torch.zeros(2, 5, 12)
    env = {"bs": 2, "t": 5, "d": 12, "dim": 12}
    assert [eval(s, {}, env) for s in vals["y"]] == list(m(x).shape)
    q, k, v = m.qkv(x).view(2, 5, 3, 3, 4).unbind(2)
    assert [eval(s, {}, env) for s in vals["viewed"]] == list(attention_kernel(q, k, v).view(2, 5, 12).shape)


SIZES_SRC = '''import torch
from torch import nn
from some_kernels_nobody_has import attention_kernel


class Attn(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2):
        super().__init__()
        self.dim = dim
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(x).unflatten(-1, (3, self.heads, -1)).unbind(-3)
        o = attention_kernel(q, k, v)
        merged = o.reshape(*o.shape[:-2], -1)
        spelled = o.reshape(o.size()[:-2] + (self.dim,))
        y = self.out(spelled)
        return y, merged
'''


def test_the_sizes_of_a_lost_value_are_some_sizes_nothing_is_known_of():
    # `o.shape` of a kernel's result: sizes of unknown number and value, so what a `reshape`
    # after them spells is all that is claimed (its last size), never anything of `o` itself
    vals = _values(SIZES_SRC)
    assert vals["merged"] == ["*?", "?"], vals
    assert vals["spelled"] == ["*?", "dim"], vals
    assert vals["y"] == ["*?", "dim"], vals
    assert vals.get("o") is None, vals

    def attention_kernel(q, k, v):  # a stand-in: (..., t, heads, head_dim) in and out
        return (torch.softmax(q.transpose(-2, -3) @ k.transpose(-2, -3).transpose(-1, -2), -1)
                @ v.transpose(-2, -3)).transpose(-2, -3)
    scope = {}
    exec(compile(SIZES_SRC.replace("from some_kernels_nobody_has import attention_kernel\n", ""), "m.py", "exec"),
         scope)
    scope["attention_kernel"] = attention_kernel
    for lead in [(5,), (2, 5), (2, 3, 5)]:
        m = scope["Attn"](dim=12, heads=3)
        y, merged = m(torch.zeros(*lead, 12))
        assert y.shape[-1] == 12 and merged.shape[-1] == 12 and y.dim() >= 1 and merged.dim() >= 1
