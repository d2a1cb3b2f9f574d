"""A string default read as a key its table lacks (choices.replaced_default_item): on that path a
caller replaced the default, and the read succeeds only with one of the table's keys, so it is one
of the table's values (an activation factory's `if name in FAST: return FAST[name]` arm, taken
for other names than the default). Each claimed shape is checked against torch on the meta device,
for every key the tables hold; a table other code may extend is no choice."""
import types

import pytest

from shapehint.analysis.api import analyze_source

SRC = '''import torch
from torch import nn

_TABLE = dict(relu=nn.ReLU, relu6=nn.ReLU6, gelu=nn.GELU)
_FAST = dict(silu=nn.SiLU, mish=nn.Mish)
_WIDE = dict(lin=nn.Identity, flat=nn.Flatten)
_OPEN = dict(silu=nn.SiLU)


def pick(name):
    if name in _FAST:
        return _FAST[name]
    return _TABLE[name]


def widen(name):
    if name in _WIDE:
        return _WIDE[name]
    return _TABLE[name]


def register(name, cls):
    _OPEN[name] = cls


def pick_open(name):
    if name in _OPEN:
        return _OPEN[name]
    return _TABLE[name]


class Block(nn.Module):
    def __init__(self, c: int, act: str = 'relu6', mode: str = 'relu', kind: str = 'gelu'):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.act = pick(act)()
        self.wide = widen(mode)()
        self.other = pick_open(kind)()

    def forward(self, x):
        x = self.conv(x)
        y = self.act(x)
        z = self.wide(x)
        w = self.other(x)
        return y
'''


def _values():
    return {v["name"]: v["shape"] for v in analyze_source(SRC, "acts.py").infer_json()["values"]
            if v["function"] == "Block.forward"}


def _run(act="relu6", mode="relu", shape=(2, 3, 5, 7)):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "acts.py", "exec"), ns)
    m = ns["Block"](shape[1], act, mode).to("meta")
    x = torch.empty(*shape, device="meta")
    h = m.conv(x)
    return x, {"y": m.act(h), "z": m.wide(h)}


def _holds(claim, got, x):
    env = {"x": types.SimpleNamespace(shape=x.shape), "c": x.shape[1]}
    if claim[-1] == "*?":
        return all(eval(d, {}, env) == g for d, g in zip(claim[:-1], got.shape))
    return len(claim) == len(got.shape) and all(d == "?" or eval(d, {}, env) == g for d, g in zip(claim, got.shape))


def test_a_default_the_table_lacks_reads_one_of_its_values():
    assert _values()["y"] == ["x.shape[0]", "c", "x.shape[2]", "x.shape[3]"]


def test_values_that_disagree_claim_only_what_they_share():
    assert _values()["z"] == ["x.shape[0]", "*?"]


def test_a_table_other_code_extends_is_no_choice():
    assert "w" not in _values()


@pytest.mark.parametrize("act", ["relu", "relu6", "gelu", "silu", "mish"])
def test_the_activation_choice_is_torchs(act):
    x, out = _run(act)
    assert _holds(_values()["y"], out["y"], x)


@pytest.mark.parametrize("mode", ["relu", "lin", "flat"])
def test_the_disagreeing_choice_is_torchs(mode):
    x, out = _run(mode=mode)
    assert _holds(_values()["z"], out["z"], x)
