"""A configuration's own `None` defaults in the defaults construction context (issue 28;
analysis/config_bases.py `none_params`, devicerun/builders.py `_nones_at_default`).

A configuration that stores a size as it came, `self.head_dim = head_dim` with `head_dim=None`,
leaves the model to derive it (`config.head_dim if config.head_dim is not None else hidden //
heads`, Mistral-like attention). The class on its own holds any value there (a build may pass
`head_dim=16`), so the attention's last axis is unknown; in the context built with the
configuration's defaults it is `None`, the derivation decided. A build passing another value is
not bound to that context. Also: a configuration that reads its `**kwargs` by membership
(`"legacy" in kwargs`) still has its defaults decided, and a base's `setattr` loop over the
keywords it is handed cannot write a parameter of the class the build calls (that keyword binds
the parameter). The shapes claimed are checked against torch (meta tensors)."""
import ast

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.config_bases import decided, mro, none_params
from shapehint.devicerun.builders import built_by

from .infer_values import context_shape, value_at
from .program_runs import model_on_ids

PROGRAM = '''import torch
from torch import nn


class Cfg:
    def __init__(self, hidden_size=32, num_attention_heads=4, head_dim=None, **kwargs):
        self.hidden_size = hidden_size
        self.num_attention_heads = num_attention_heads
        self.head_dim = head_dim
        if "legacy" in kwargs:
            print("legacy")
        self.impl = kwargs.pop("impl", "plain")


class Attn(nn.Module):
    def __init__(self, config: Cfg):
        super().__init__()
        self.head_dim = config.head_dim if config.head_dim is not None else config.hidden_size // config.num_attention_heads
        self.q = nn.Linear(config.hidden_size, config.num_attention_heads * self.head_dim)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, -1, self.head_dim)
        return q


class Other(Attn):
    pass


ATTENTIONS = {"plain": Attn, "other": Other}


class Base(nn.Module):
    config: Cfg


class Model(Base):
    def __init__(self, config):
        super().__init__()
        self.embed = nn.Embedding(100, config.hidden_size)
        self.attn = ATTENTIONS[config.impl](config)

    def forward(self, ids):
        x = self.embed(ids)
        y = self.attn(x)
        return y
'''
CTX = "Model.__init__:39 assuming config.impl == 'plain'"
BUILT = "Model.__init__ assuming config.impl == 'plain'"  # (builders' label: no line)


def _torch(config: str):
    """(the output's shape, the configuration) of `Model(<config>)` run on meta tensors."""
    pytest.importorskip("torch")
    return model_on_ids(PROGRAM, config)


def test_the_context_holds_the_configurations_own_none():
    values = analyze_source(PROGRAM, "model.py").infer_json()["values"]
    got = context_shape(value_at(values, "Model.forward", 46, "y", required=True), CTX)
    assert got == ["ids.shape[0]", "ids.shape[1]", "config.num_attention_heads",
                   "config.hidden_size//config.num_attention_heads"]
    shape, cfg = _torch("Cfg()")
    env = {"ids.shape[0]": 2, "ids.shape[1]": 5, "config.num_attention_heads": cfg.num_attention_heads,
           "config.hidden_size//config.num_attention_heads": cfg.hidden_size // cfg.num_attention_heads}
    assert shape == tuple(env[d] for d in got) == (2, 5, 4, 8)
    # the class on its own: a build may pass any head_dim, so no size is claimed for the last axis
    q = value_at(values, "Attn.forward", 23, "q")
    assert q is None or q["shape"] is None or q["shape"][-1] != "config.hidden_size//config.num_attention_heads"


def test_torch_another_head_dim_changes_the_shape():
    # (so a build passing one must not be bound to the context, below)
    assert _torch("Cfg(head_dim=16)")[0] == (2, 5, 4, 16)


@pytest.mark.parametrize("build, matched", [
    ("Model(Cfg())", True),
    ("Model(Cfg(hidden_size=64))", True),
    ("Model(Cfg(head_dim=None))", True),
    ("Model(Cfg(head_dim=16))", False),
    ("Model(Cfg(32, 4, 16))", False),
])
def test_a_build_passing_another_value_is_not_bound(build, matched):
    assert (BUILT in built_by([build], PROGRAM, "model.py")) is matched


def _decided(src: str) -> dict:
    classes = {c.name: c for c in ast.parse(src).body if isinstance(c, ast.ClassDef)}
    order = mro(classes["C"], lambda c: [classes[b.id] for b in c.bases if b.id in classes])
    return decided(order, True)


def test_only_the_called_classs_own_nones_stored_as_they_came():
    src = '''class A:
    def __init__(self, label=None, **kwargs):
        self.label = label


class C(A):
    def __init__(self, size=None, width=None, heads=None, **kwargs):
        self.size = size
        if width is None:
            width = 4
        self.width = width
        self.heads = heads or 2
        super().__init__(**kwargs)
'''
    # (a base's `None` may be set by a keyword the build hands on through `**kwargs`)
    got = _decided(src)
    heads = got.pop("heads")  # (not stored as it came: derived from it, config_derived.py)
    assert got == {"size": None} and ast.unparse(heads.expr) == "2" and not heads.reads
    init = next(n for n in ast.parse(src).body if isinstance(n, ast.ClassDef) and n.name == "C").body[0]
    assert none_params(init) == {"size", "heads"}


def test_a_bases_setattr_loop_cannot_write_the_called_classs_parameters():
    src = '''class A:
    def __init__(self, flag=False, **kwargs):
        for key, value in kwargs.items():
            setattr(self, key, value)
        self.flag = flag


class C(A):
    def __init__(self, act="gelu", other=None, **kwargs):
        self.act = act
        if "legacy" in kwargs:
            kwargs.pop("legacy")
        super().__init__(**kwargs)
'''
    assert _decided(src) == {"act": "gelu", "flag": False}
