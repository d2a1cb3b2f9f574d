"""`getattr(obj, "name", default)` gives the default only where the attribute is provably absent
(issue 28; analysis/builtins.b_getattr, absent_attrs.py).

An attribute whose value is not known is still an attribute: `getattr(config, "head_dim", None)
or hidden // heads` of a configuration built with `head_dim=8` is 8, so the class on its own (any
configuration) claims neither the default nor what the `or` makes of it. In the context built at
the class's defaults, where the attributes the chain cannot set are absent (`groups`), the
default is read; there `head_dim` is its own None default and the `or` decides it. The shapes
claimed are checked against torch (meta tensors)."""
import pytest

from shapehint.analysis.api import analyze_source

from .infer_values import context_shape, value_at

PROGRAM = '''import torch
from torch import nn


class Cfg:
    def __init__(self, hidden_size=64, num_attention_heads=4, head_dim=None, **kwargs):
        self.hidden_size = hidden_size
        self.num_attention_heads = num_attention_heads
        self.head_dim = head_dim
        self.impl = kwargs.pop("impl", "plain")


class Attn(nn.Module):
    def __init__(self, config: Cfg):
        super().__init__()
        self.head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        self.groups = getattr(config, "groups", 3)
        self.q = nn.Linear(config.hidden_size, config.num_attention_heads * self.head_dim)
        probe = torch.zeros(self.head_dim)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, -1, self.head_dim)
        g = x.new_zeros(b, self.groups)
        return q, g


class Other(Attn):
    pass


ATTENTIONS = {"plain": Attn, "other": Other}


class Base(nn.Module):
    config: Cfg


class Model(Base):
    def __init__(self, config: Cfg):
        super().__init__()
        self.embed = nn.Embedding(100, config.hidden_size)
        self.attn = ATTENTIONS[config.impl](config)

    def forward(self, ids):
        x = self.embed(ids)
        q, g = self.attn(x)
        return q, g
'''
CTX = "Model.__init__:40 assuming config.impl == 'plain'"


def _torch(config: str):
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "model.py", "exec"), ns)
    net = ns["Model"](eval(config, ns)).to("meta")
    q, g = net(torch.zeros(2, 5, dtype=torch.long, device="meta"))
    return tuple(q.shape), tuple(g.shape)


@pytest.fixture(scope="module")
def values():
    return analyze_source(PROGRAM, "model.py").infer_json()["values"]


def test_an_attribute_of_unknown_value_is_not_the_default(values):
    # (torch: a configuration built with `head_dim=8` gives 8, not 64 // 4)
    assert _torch("Cfg(head_dim=8)") == ((2, 5, 4, 8), (2, 3))
    probe = value_at(values, "Attn.__init__", 19, "probe")
    assert probe is None or probe["shape"] in (None, ["?"])
    q = value_at(values, "Attn.forward", 23, "q")
    assert q is None or q["shape"] is None or q["shape"][-1] == "?"


def test_a_provably_absent_attribute_gives_the_default(values):
    assert _torch("Cfg()") == ((2, 5, 4, 16), (2, 3))
    assert _torch("Cfg(groups=5)")[1] == (2, 3)  # (a keyword the chain does not store: still absent)
    g = value_at(values, "Model.forward", 47, "g", required=True)
    assert context_shape(g, CTX) == ["ids.shape[0]", 3]
    q = value_at(values, "Model.forward", 47, "q", required=True)
    assert context_shape(q, CTX) == ["ids.shape[0]", "ids.shape[1]", "config.num_attention_heads",
                                     "config.hidden_size//config.num_attention_heads"]
    # the class on its own: `groups` may be any attribute's value, so it is a name, not 3
    assert value_at(values, "Attn.forward", 24, "g", required=True)["shape"] == ["b", "config.groups"]
