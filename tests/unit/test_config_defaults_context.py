"""The defaults construction context with the model's configuration at its class's defaults
(analysis/config_defaults.py, devicerun/builders.py).

The model reads an activation from its configuration (`ACT[config.act] if isinstance(config.act,
str) else config.act`); the class on its own holds the configuration unknown, so the layer is
unknown and so is every line after it. The file names the configuration's class (`config:
Settings` on a base; the class is imported from a module beside it): the context built with a
`Settings()`'s decided defaults (`act="gelu"`, `drop=0.1`) has the activation, and its sizes stay
symbols. A build binds it only when it passes such a configuration with those defaults unchanged.
Every shape claimed is checked against torch (meta tensors)."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.devicerun.builders import built_by

from .test_defaults_context_floats_forwarding import _at, _context
from .program_runs import built_on_meta

SETTINGS = '''class Settings:
    def __init__(self, hidden=8, inner=16, act="gelu", drop=0.1, **kwargs):
        self.extra = kwargs
        self.hidden = hidden
        self.inner = inner
        self.act = act
        self.drop = drop
'''
MODEL = '''import torch
from torch import nn
from settings import Settings

ACT = {"gelu": nn.GELU(), "relu": nn.ReLU()}


class Inner(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden, config.inner)
        if isinstance(config.act, str):
            self.fn = ACT[config.act]
        else:
            self.fn = config.act
        self.drop = nn.Dropout(config.drop)

    def forward(self, x):
        x = self.dense(x)
        x = self.fn(x)
        x = self.drop(x)
        return x


class Base(nn.Module):
    config: Settings


class Model(Base):
    def __init__(self, config, with_out=True):
        super().__init__()
        self.inner = Inner(config)
        self.out = nn.Linear(config.inner, config.hidden) if with_out else nn.Identity()

    def forward(self, x):
        h = self.inner(x)
        y = self.out(h)
        return y
'''
CTX = "Model.__init__:30"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "settings.py").write_text(SETTINGS)
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    return model


def _values(model, text=MODEL):
    return analyze_source(text, str(model)).infer_json()["values"]


def _torch(tmp_path, build):
    torch = pytest.importorskip("torch")
    net = built_on_meta(tmp_path, MODEL, build)
    x = torch.empty(2, 5, 8, device="meta")
    a = net.inner.fn(net.inner.dense(x))
    return x, a, net(x)


def _evaluates(shape, got, env):
    """`shape` (its leading `*x`: the input's leading axes, any number) evaluated is `got`."""
    assert shape is not None and "?" not in shape, shape
    tail = shape[1:] if str(shape[0]) == "*x" else shape
    assert not any(str(d).startswith("*") for d in tail), shape
    assert [d if isinstance(d, int) else eval(d, dict(env)) for d in tail] == list(got)[len(got) - len(tail):]
    assert len(tail) == len(shape) or len(got) - len(tail) == env["x"].dim() - 1  # (`*x`: x's leading axes)


def test_the_context_has_the_layer_the_default_picks(files, tmp_path):
    values = _values(files)
    x, act, y = _torch(tmp_path, "Model(Settings(hidden=8, inner=16))")
    env = {"x": x, "config": type("C", (), {"hidden": 8, "inner": 16})}
    _evaluates(_context(_at(values, "Inner.forward", 20, "x"), CTX), act.shape, env)
    _evaluates(_context(_at(values, "Model.forward", 36, "h"), CTX), act.shape, env)
    _evaluates(_context(_at(values, "Model.forward", 37, "y"), CTX), y.shape, env)
    # the class on its own: the configuration's `act` may be any callable
    assert _at(values, "Inner.forward", 20, "x")["shape"] is None


def test_sizes_stay_symbols(files):
    got = _context(_at(_values(files), "Model.forward", 37, "y"), CTX)
    assert got is not None and got[-1] == "config.hidden"


def test_no_context_when_the_class_names_no_configuration(files):
    text = MODEL.replace("    config: Settings\n", "    pass\n")
    assert _context(_at(_values(files, text), "Model.forward", 37, "y"), CTX) is None


def test_no_context_without_a_flag(files):
    # (a context of its own for every class taking a configuration would run the whole model again)
    text = MODEL.replace("config, with_out=True", "config").replace(" if with_out else nn.Identity()", "")
    assert all(not v.get("contexts") for v in _values(files, text))


def test_an_attribute_written_twice_is_not_decided(tmp_path):
    (tmp_path / "settings.py").write_text(SETTINGS + "        self.act = kwargs.get('act2', act)\n")
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    assert _context(_at(_values(model), "Inner.forward", 20, "x"), CTX) is None


@pytest.mark.parametrize("build, matched", [
    ("Model(Settings())", True),
    ("Model(Settings(hidden=32, inner=64))", True),
    ("Model(config=Settings(hidden=32, act='gelu'))", True),
    ("Model(Settings(hidden=32, extra_flag=True))", True),  # (**kwargs: no attribute the context reads)
    ("Model(Settings(act='relu'))", False),  # another activation: the context says nothing of it
    ("Model(Settings(drop=0.5))", False),
    ("Model(Settings(**kw))", False),
    ("Model(cfg)", False),  # a configuration not seen built
    ("Model(Other())", False),
    ("Model(Settings(), with_out=False)", False),
])
def test_a_build_binds_only_a_configuration_at_the_defaults(files, build, matched):
    assert ("Model.__init__" in built_by([build], MODEL, str(files))) is matched


def test_torch_another_activation_changes_nothing_of_the_shape_but_is_not_bound(files, tmp_path):
    # (the context's claim is about `act="gelu"`; a relu build is not bound, see above)
    assert _torch(tmp_path, "Model(Settings(act='relu'))")[2].shape == (2, 5, 8)
