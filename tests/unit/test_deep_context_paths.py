"""A deep construction label (frames.deep_context, built.recorded_in_built) names one call path.

In a literal context (literal_contexts.py) the model's run records the file's calls it makes
under labels of their own. A decoder-like block calls one attention class twice, on itself and on
an encoder's output of another length: the attention's lines have one shape per call. Under one
label for both (its first site's, the model's call of the block), each call's shape read as the
other's: the weights `[b, heads, t, t]` of the self-attention claimed for a cross-attention whose
are `[b, heads, t, s]`. Each call's path is its own label; each shape is checked against torch
(meta tensors)."""
import pytest

from shapehint.analysis.api import analyze_source

from .program_runs import built_on_meta
from .test_literal_contexts import SETTINGS

MODEL = '''import torch
from torch import nn
from settings import Settings, TABLE


def plain_attention(q, k, v):
    w = torch.softmax(q @ k.transpose(-1, -2), dim=-1)
    return w @ v, w


class Base(nn.Module):
    config: Settings


class Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.heads = config.heads
        self.q = nn.Linear(config.hidden, config.hidden)
        self.out = nn.Linear(config.hidden, config.hidden)

    def forward(self, x, kv):
        b, t, c = x.shape
        q = self.q(x).view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = self.q(kv).view(b, -1, self.heads, c // self.heads).transpose(1, 2)
        fn = plain_attention
        if self.config.impl != "plain":
            fn = TABLE[self.config.impl]
        o, w = fn(q, k, k)
        o = o.transpose(1, 2).reshape(b, t, c)
        return self.out(o), w


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self_attn = Attention(config)
        self.cross_attn = Attention(config)

    def forward(self, x, enc):
        a, sw = self.self_attn(x, x)
        b, cw = self.cross_attn(a, enc)
        return b


class Model(Base):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.block = Block(config)

    def forward(self, x, enc):
        y = self.block(x, enc)
        return y
'''
CTX = "Model.__init__:48 assuming config.impl == 'plain'"
SELF, CROSS = CTX + " via Model.forward:54 via Block.forward:42", CTX + " via Model.forward:54 via Block.forward:43"


def _shapes(tmp_path, fn, line, name):
    (tmp_path / "settings.py").write_text(SETTINGS)
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    values = analyze_source(MODEL, str(path)).infer_json()["values"]
    out: dict = {}
    for v in values:
        if v["function"] == fn and v["line"] == line and v["name"] == name:
            for c in v.get("contexts") or []:
                out.setdefault(c["context"], []).append(c["shape"])
    return out


def _weights(tmp_path):
    """The attention weights of the block's two calls, as torch has them (x: [2, 5, 8], enc: [2, 7, 8])."""
    torch = pytest.importorskip("torch")
    net = built_on_meta(tmp_path, MODEL, "Model(Settings(hidden=8, heads=2, impl='plain'))")
    seen = {}
    for name in ("self_attn", "cross_attn"):
        getattr(net.block, name).register_forward_hook(lambda m, a, out, name=name: seen.update({name: out[1].shape}))
    x, enc = torch.empty(2, 5, 8, device="meta"), torch.empty(2, 7, 8, device="meta")
    net(x, enc)
    return {"x": x, "enc": enc, "config": net.config}, seen


def _ev(shape, env):
    return [eval(d, env) if d != "?" else None for d in shape]


def test_each_call_path_has_its_own_label(tmp_path):
    got = _shapes(tmp_path, "Attention.forward", 30, "w")
    # (the model's run: one shape per label, never the two calls' under one)
    assert all(len(s) == 1 for lbl, s in got.items() if " via " in lbl), got
    env, seen = _weights(tmp_path)
    assert seen["self_attn"] != seen["cross_attn"]
    assert _ev(got[SELF][0], env) == list(seen["self_attn"])
    cross = _ev(got[CROSS][0], env)  # (the encoder's length is not the model's input's: unknown)
    assert cross[3] is None and cross[:3] == list(seen["cross_attn"])[:3]


def test_a_nested_function_is_labelled_by_its_whole_path(tmp_path):
    got = _shapes(tmp_path, "plain_attention", 7, "w")
    env, seen = _weights(tmp_path)
    assert _ev(got[SELF + " via Attention.forward:30"][0], env) == list(seen["self_attn"])
    assert _ev(got[CROSS + " via Attention.forward:30"][0], env)[3] is None


def test_the_referee_holds_a_path_label_to_its_every_site():
    from .test_literal_contexts import _score
    score = _score()
    same = lambda n: n  # noqa: E731
    assert score.parse_context(SELF) == ("Model.__init__ assuming config.impl == 'plain'", 48)
    inner = [("Attention.forward", 30)]
    self_chain = inner + [("Block.forward", 42), ("Model.forward", 54)]
    cross_chain = inner + [("Block.forward", 43), ("Model.forward", 54)]
    assert score._through_site(SELF + " via Attention.forward:30", self_chain, same, same)
    assert not score._through_site(SELF + " via Attention.forward:30", cross_chain, same, same)
    assert score._through_site(CROSS, cross_chain[1:], same, same)
    assert not score._through_site(CROSS, self_chain[1:], same, same)
    assert not score._through_site(SELF, [("Model.forward", 54), ("Block.forward", 42)], same, same)  # (order)
