"""Attributes a configuration at its class's defaults surely lacks (issue 28;
analysis/absent_attrs.py, config_bases.present_names).

A rotary embedding reads optional settings with defaults (`getattr(config, "ratio", 1.0)`,
`hasattr(config, "scaling")`); the configuration hands its other keywords to a base whose loop
sets each as an attribute, so the class on its own holds any value there (`ratio` an unknown
float: the width unknown). In the context built with the configuration at its defaults the build
passes only keywords the chain names (devicerun/builders.py refuses another), so those attributes
are absent: the width is decided. The shapes claimed are checked against torch (meta tensors)."""
import ast

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.config_bases import present_names
from shapehint.devicerun.builders import built_by

from .infer_values import context_shape, value_at
from .program_runs import model_on_ids

PROGRAM = '''import torch
from torch import nn


class BaseCfg:
    attribute_map = {"width": "hidden_size"}

    def __init__(self, flag=False, **kwargs):
        for key, value in kwargs.items():
            setattr(self, key, value)
        self.flag = flag

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)


class Cfg(BaseCfg):
    def __init__(self, hidden_size=32, num_heads=4, **kwargs):
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.impl = kwargs.pop("impl", "plain")
        super().__init__(**kwargs)


def init_default(config):
    ratio = getattr(config, "ratio", 1.0)
    dim = int(config.hidden_size // config.num_heads * ratio)
    return 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))


def init_scaled(config):
    return init_default(config) / config.scaling["factor"]


INITS = {"default": init_default, "scaled": init_scaled}


class Rotary(nn.Module):
    def __init__(self, config: Cfg):
        super().__init__()
        kind = "scaled" if hasattr(config, "scaling") else "default"
        inv_freq = INITS[kind](config)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, pos):
        b, t = pos.shape
        freqs = pos.view(b, t, 1).float() * self.inv_freq.view(1, 1, -1)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb


class Other(Rotary):
    pass


ROTARIES = {"plain": Rotary, "other": Other}


class Base(nn.Module):
    config: Cfg


class Model(Base):
    def __init__(self, config):
        super().__init__()
        self.rotary = ROTARIES[config.impl](config)

    def forward(self, pos):
        emb = self.rotary(pos)
        return emb
'''
CTX = "Model.__init__:66 assuming config.impl == 'plain'"
BUILT = "Model.__init__ assuming config.impl == 'plain'"  # (builders' label: no line)


def _torch(config: str):
    """(the output's shape, the configuration) of `Model(<config>)` run on meta tensors."""
    pytest.importorskip("torch")
    return model_on_ids(PROGRAM, config)


def test_the_context_reads_the_absent_attributes_defaults():
    values = analyze_source(PROGRAM, "model.py").infer_json()["values"]
    got = context_shape(value_at(values, "Model.forward", 71, "emb", required=True), CTX)
    assert got == ["pos.shape[0]", "pos.shape[1]", "2*((config.hidden_size//config.num_heads - 1)//2) + 2"]
    shape, cfg = _torch("Cfg()")
    hd = cfg.hidden_size // cfg.num_heads
    assert shape == (2, 5, 2 * ((hd - 1) // 2) + 2) == (2, 5, 8)
    # the class on its own: any keyword may have set `ratio`, so the width is not claimed
    assert value_at(values, "Rotary.forward", 50, "emb", required=True)["shape"][-1] == "?"


def test_torch_a_keyword_the_chain_does_not_name_changes_the_shape():
    assert _torch("Cfg(ratio=0.5)")[0] == (2, 5, 4)


@pytest.mark.parametrize("build, matched", [
    ("Model(Cfg())", True),
    ("Model(Cfg(hidden_size=64))", True),
    ("Model(Cfg(ratio=0.5))", False),  # (reaches the base's `setattr` loop)
    ("Model(Cfg(scaling={'factor': 2.0}))", False),
])
def test_a_build_passing_another_keyword_is_not_bound(build, matched):
    assert (BUILT in built_by([build], PROGRAM, "model.py")) is matched


def _chain(src: str) -> list:
    classes = [c for c in ast.parse(src).body if isinstance(c, ast.ClassDef)]
    return classes[::-1]  # (the subclass first, then its base)


def test_present_names_holds_what_may_be_written_or_is_mentioned():
    names = present_names(_chain(PROGRAM.split("def init_default")[0]))
    assert {"hidden_size", "num_heads", "impl", "flag", "width", "attribute_map"} <= names
    assert "ratio" not in names and "scaling" not in names


@pytest.mark.parametrize("extra", [
    "    def __getattr__(self, key):\n        return 1\n",
    "    def __getattribute__(self, key):\n        return 1\n",
])
def test_an_accessor_that_may_supply_any_name_opens_it(extra):
    src = PROGRAM.split("def init_default")[0].replace("class Cfg(BaseCfg):\n", "class Cfg(BaseCfg):\n" + extra)
    assert present_names(_chain(src)) is None


def test_a_base_not_seen_or_a_write_not_followed_opens_it():
    src = PROGRAM.split("def init_default")[0]
    assert present_names(_chain(src), complete=False) is None
    assert present_names(_chain(src.replace("        super().__init__(**kwargs)",
                                            "        super().__init__(**kwargs)\n        check(self)"))) is None


@pytest.mark.parametrize("stored, closed", [
    ({"ratio"}, {"hidden_size", "ratio"}),  # (what it may store is present after it)
    (None, None),  # (any name: nothing is surely absent)
])
def test_a_call_cut_off_makes_what_it_may_store_present(monkeypatch, stored, closed):
    from shapehint.analysis import cut_writes
    from shapehint.analysis.absent_attrs import absent
    from shapehint.analysis.objects import ClassObj, InstanceObj
    from shapehint.shapes.values import FloatV

    class It:
        def mutated(self, obj):
            pass
    monkeypatch.setattr(cut_writes, "_stores_of", lambda it, node: (stored, {}))
    inst = InstanceObj(ClassObj("Cfg", "Cfg", None, [], {}), {"hidden_size": FloatV(None)},
                       closed=frozenset({"hidden_size"}))
    assert absent(inst, "ratio")
    cut_writes.forget(It(), None, [inst], {})
    assert inst.closed == (None if closed is None else frozenset(closed)) and not absent(inst, "ratio")
