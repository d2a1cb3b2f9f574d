"""A configuration attribute assumed equal to the first key of a table the classes read keyed by
it (analysis/literal_contexts.py `_first_keys`, flag_defaults.py, devicerun/builders.py).

`self.mixer = MIXERS[config.impl](config)`: the table's keys are values the configuration can
hold, so the construction context that assumes `config.impl == 'plain'` (the first key) is one a
build passing `impl='plain'` binds. The class takes no flag, so without it no construction
context held its configuration at the class's defaults, and `pool == "mean"` (a string default)
was undecided on every line after it. The shape claimed is checked against torch (meta tensors)."""
import ast

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.literal_contexts import guarded_literals
from shapehint.devicerun.builders import built_by

from .test_defaults_context_floats_forwarding import _at, _context
from .program_runs import built_on_meta

SETTINGS = '''class Settings:
    def __init__(self, hidden=8, pool="mean", **kwargs):
        self.hidden = hidden
        self.pool = pool
        self.impl = kwargs.pop("impl", None)
'''
MODEL = '''import torch
from torch import nn
from settings import Settings


class PlainMixer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.proj = nn.Linear(config.hidden, config.hidden)

    def forward(self, x):
        return self.proj(x)


class WideMixer(PlainMixer):
    def __init__(self, config):
        super().__init__(config)
        self.up = nn.Linear(config.hidden, 2 * config.hidden)
        self.proj = nn.Linear(2 * config.hidden, config.hidden)

    def forward(self, x):
        return self.proj(self.up(x))


MIXERS = {"plain": PlainMixer, "wide": WideMixer}


class Base(nn.Module):
    config: Settings


class Model(Base):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.mixer = MIXERS[config.impl](config)

    def forward(self, x):
        b, t, c = x.shape
        h = self.mixer(x)
        if self.config.pool == "mean":
            h = h.mean(1)
        y = torch.relu(h)
        return y
'''
CTX = "Model.__init__:33 assuming config.impl == 'plain'"


def _values(tmp_path, model=MODEL):
    (tmp_path / "settings.py").write_text(SETTINGS)
    path = tmp_path / "model.py"
    path.write_text(model)
    return analyze_source(model, str(path)).infer_json()["values"]


def test_the_tables_first_key_is_assumed_and_its_context_decides_the_defaults(tmp_path):
    y = _at(_values(tmp_path), "Model.forward", 43, "y")
    assert y["shape"] == ["b", "*?", "config.hidden"]  # (the class on its own: `pool` undecided)
    got = _context(y, CTX)
    assert got == ["x.shape[0]", "config.hidden"]
    torch = pytest.importorskip("torch")
    net = built_on_meta(tmp_path, MODEL, "Model(Settings(impl='plain'))")
    x = torch.empty(2, 5, 8, device="meta")
    assert [eval(d, {"x": x, "config": net.config}) for d in got] == list(net(x).shape)


def test_no_assumption_where_the_table_is_read_by_another_key(tmp_path):
    values = _values(tmp_path, MODEL.replace("MIXERS[config.impl]", "MIXERS['wide']"))
    assert all("assuming" not in c["context"] for v in values for c in v.get("contexts") or [])


@pytest.mark.parametrize("build, matched", [
    ("Model(Settings(impl='plain'))", True),
    ("Model(Settings(hidden=16, impl='plain'))", True),
    ("Model(Settings(impl='wide'))", False),
    ("Model(Settings())", False),  # (no value given: another the class may hold)
    ("Model(Settings(pool='max', impl='plain'))", False),  # (the context holds `pool` at its default)
])
def test_a_build_binds_only_a_configuration_given_the_key(tmp_path, build, matched):
    (tmp_path / "settings.py").write_text(SETTINGS)
    (tmp_path / "model.py").write_text(MODEL)
    assert (CTX.replace(":33", "") in built_by([build], MODEL, str(tmp_path / "model.py"))) is matched


def _literals(src: str) -> list:
    tree = ast.parse(src)
    return guarded_literals(ast.Module(body=[s for s in tree.body if isinstance(s, (ast.ClassDef, ast.Assign))],
                                       type_ignores=[]))


@pytest.mark.parametrize("table, found", [
    ('T = {"a": f, "b": g}', [("impl", "a")]),
    ('T = {1: f, "b": g}', []),  # (not every key a string: no value the attribute holds is known)
    ('T = {**U, "b": g}', []),
    ('T = dict(a=f)', []),
    ('T = {"a": f(), "b": g()}', []),  # (made values, an activation's instance: no implementation picked)
])
def test_only_a_dict_display_of_string_keys_gives_its_first_key(table, found):
    src = table + "\n\nclass M:\n    def __init__(self, config):\n        self.f = T[config.impl]\n"
    assert _literals(src) == found


def test_a_guarding_literal_comes_first_and_the_assumptions_stay_bounded():
    src = ('T = {"a": f, "b": g}\nU = {"c": f}\nV = {"d": f}\n\nclass M:\n'
           '    def __init__(self, config):\n        self.f = T[config.impl]\n        self.g = U[config.kind]\n'
           '        self.h = V[config.other]\n\n'
           '    def forward(self, x):\n        fn = f\n        if self.config.mode != "own":\n'
           '            fn = REG[self.config.mode]\n        return fn(x)\n')
    assert _literals(src) == [("mode", "own"), ("impl", "a")]
