"""A configuration attribute assumed equal to the literal that guards an open registry's lookup
(analysis/literal_contexts.py, flag_defaults.py, devicerun/builders.py, bench/realmodels/score.py).

The attention picks its own function unless the configuration's `impl` differs from "plain",
where it reads a registry others extend (`register`): the class on its own holds `impl` unknown,
so the attention's result, and every line after it, is unknown. The construction context that
assumes `config.impl == 'plain'` after the construction (stored through the property's setter,
read back as the literal) has the file's own function there; a build binds it only when it passes
`impl='plain'` to the configuration. Every shape claimed is checked against torch (meta tensors)."""
import importlib.util
import os

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.devicerun.builders import built_by

from .test_defaults_context_floats_forwarding import _at, _context
from .program_runs import built_on_meta

SETTINGS = '''class Table:
    _fns = {}

    @classmethod
    def register(cls, key, fn):
        cls._fns[key] = fn

    def __getitem__(self, key):
        return self._fns[key]


TABLE = Table()


class Settings:
    def __init__(self, hidden=8, heads=2, **kwargs):
        self.hidden = hidden
        self.heads = heads
        self.impl = kwargs.pop("impl", None)

    @property
    def impl(self):
        return self._impl_internal

    @impl.setter
    def impl(self, value):
        self._impl_internal = value
'''
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

    def forward(self, x):
        b, t, c = x.shape
        q = self.q(x).view(b, t, self.heads, c // self.heads).transpose(1, 2)
        fn = plain_attention
        if self.config.impl != "plain":
            fn = TABLE[self.config.impl]
        o, w = fn(q, q, q)
        o = o.transpose(1, 2).reshape(b, t, c)
        return self.out(o)


class Model(Base):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.attn = Attention(config)

    def forward(self, x):
        y = self.attn(x)
        return y
'''
CTX = "Model.__init__:35 assuming config.impl == 'plain'"


def _files(tmp_path, settings=SETTINGS, model=MODEL):
    (tmp_path / "settings.py").write_text(settings)
    path = tmp_path / "model.py"
    path.write_text(model)
    return path


def _values(path):
    return analyze_source(path.read_text(), str(path)).infer_json()["values"]


def _torch(tmp_path, build):
    torch = pytest.importorskip("torch")
    net = built_on_meta(tmp_path, MODEL, build)
    x = torch.empty(2, 5, 8, device="meta")
    return x, net, net(x)


def test_the_context_has_the_files_own_function(tmp_path):
    values = _values(_files(tmp_path))
    x, net, y = _torch(tmp_path, "Model(Settings(hidden=8, heads=2, impl='plain'))")
    assert net.config.impl == "plain"
    got = _context(_at(values, "Model.forward", 41, "y"), CTX)
    env = {"x": x, "config": net.config}
    assert got is not None and [eval(d, env) if isinstance(d, str) else d for d in got] == list(y.shape)
    # the attention's own lines, run on the block's own input, in the same context
    o = _context(_at(values, "Attention.forward", 29, "o"), CTX)
    assert o == ["x.shape[0]", "config.heads", "x.shape[1]", "x.shape[2]//config.heads"]
    assert [eval(d, env) for d in o] == [2, 2, 5, 4]  # (torch: the plain function's [b, heads, t, c // heads])
    # the class on its own, or built without the assumption: the registry may hold any function
    assert _at(values, "Attention.forward", 29, "o")["shape"] is None
    assert _context(_at(values, "Attention.forward", 29, "o"), "Model.__init__:35") is None


def test_no_assumption_where_the_literal_guards_no_lookup_by_the_attribute(tmp_path):
    model = MODEL.replace("TABLE[self.config.impl]", "TABLE['other']")
    values = _values(_files(tmp_path, model=model))
    assert all("assuming" not in c["context"] for v in values for c in v.get("contexts") or [])


def test_no_context_where_the_setter_keeps_another_value(tmp_path):
    # (read back, the attribute is not the literal: the assumption cannot be stated)
    settings = SETTINGS.replace("self._impl_internal = value", "self._impl_internal = [value]")
    values = _values(_files(tmp_path, settings=settings))
    assert _context(_at(values, "Model.forward", 41, "y"), CTX) is None


@pytest.mark.parametrize("build, matched", [
    ("Model(Settings(impl='plain'))", True),
    ("Model(Settings(hidden=16, heads=4, impl='plain'))", True),
    ("Model(Settings())", False),  # (its default None: the model's base may choose)
    ("Model(Settings(impl='fast'))", False),
    ("Model(Settings(**kw))", False),
    ("Model(cfg)", False),
])
def test_a_build_binds_only_a_configuration_given_the_literal(tmp_path, build, matched):
    path = _files(tmp_path)
    assert (CTX.replace(":35", "") in built_by([build], MODEL, str(path))) is matched


def _score():
    path = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "bench", "realmodels", "score.py")
    spec = importlib.util.spec_from_file_location("_rm_score_literal", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_referee_counts_the_context_only_where_the_built_model_holds_the_literal():
    score = _score()
    label = CTX.replace(":35", "")
    assert score.parse_context(CTX) == (label, 35)
    assert score.confirmed(frozenset({label, "F"}), {"impl": "plain"}) == {label, "F"}
    assert score.confirmed(frozenset({label, "F"}), {"impl": "fast"}) == {"F"}
    assert score.confirmed(frozenset({label}), {}) == frozenset()


# the model's own run calls the attention twice; the second, given a mask from code the analysis
# does not have, loses the attention's result (`mask.apply(q)` is no tensor): the file's calls made
# in the model's run are recorded (deep) under a label of their own per call site, so that loss
# drops the second call's shapes only, never the first's nor those of the block's own run
DEEP = MODEL.replace("from settings import Settings, TABLE\n",
                     "from settings import Settings, TABLE\nfrom elsewhere import make_mask\n") \
    .replace("    def forward(self, x):\n        b, t, c = x.shape\n",
             "    def forward(self, x, mask=None):\n        b, t, c = x.shape\n") \
    .replace("        o, w = fn(q, q, q)\n", "        o, w = fn(q, q, q) if mask is None else mask.apply(q)\n") \
    .replace("        y = self.attn(x)\n        return y\n",
             "        y = self.attn(x)\n        z = self.attn(y, mask=make_mask(y))\n        return z\n")
DEEP_CTX = "Model.__init__:36 assuming config.impl == 'plain'"


def test_a_deep_call_that_loses_the_value_drops_only_its_own_label(tmp_path):
    values = _values(_files(tmp_path, model=DEEP))
    o = _at(values, "Attention.forward", 30, "o")
    own = ["x.shape[0]", "config.heads", "x.shape[1]", "x.shape[2]//config.heads"]
    assert _context(o, DEEP_CTX) == own  # (the block's own run, on its own input)
    assert _context(o, DEEP_CTX + " via Model.forward:42") == own  # (the model's first call: its input is x)
    assert _context(o, DEEP_CTX + " via Model.forward:43") is None  # (the one that lost it)
    assert o["shape"] is None
    # torch: the first call's attention output, the mask's module giving None
    (tmp_path / "elsewhere.py").write_text("def make_mask(y):\n    return None\n")
    torch = pytest.importorskip("torch")
    net = built_on_meta(tmp_path, DEEP, "Model(Settings(hidden=8, heads=2, impl='plain'))", ("settings", "elsewhere"))
    seen = []
    net.attn.register_forward_hook(lambda mod, args, out: seen.append(args[0].shape))
    x = torch.empty(2, 5, 8, device="meta")
    net(x)
    q = net.attn.q(x).view(2, 5, 2, 4).transpose(1, 2)
    w = torch.softmax(q @ q.transpose(-1, -2), dim=-1)
    env = {"x": x, "config": net.config}
    assert [eval(d, env) for d in own] == list((w @ q).shape) and seen[0] == x.shape


def test_the_referee_counts_a_deep_label_as_its_construction():
    score = _score()
    label = DEEP_CTX.replace(":36", "")
    assert score.parse_context(DEEP_CTX + " via Model.forward:42") == (label, 36)
    assert score.parse_context(DEEP_CTX) == (label, 36)
    # ... for the invocations made through its site only: the model's other calls of the line
    # (the second attention's, lost) are under another label, which says nothing of them
    first, second = [("Model.forward", 42)], [("Model.forward", 43)]
    same = lambda n: n  # noqa: E731
    assert score._through_site(DEEP_CTX + " via Model.forward:42", first, same, same)
    assert not score._through_site(DEEP_CTX + " via Model.forward:42", second, same, same)
    assert not score._through_site(DEEP_CTX + " via Model.forward:42", first, lambda n: None, same)
    assert score._through_site(DEEP_CTX, second, same, same)  # (the construction's own label: every call)


def test_hover_names_a_deep_labels_call_site():
    from shapehint.analysis.contexts import describe, split
    deep = DEEP_CTX + " via Model.forward:42"
    assert describe(deep + " iteration 2") == \
        "called from Model.__init__ (line 36) assuming config.impl == 'plain' via Model.forward (line 42) iteration 2"
    assert split(deep + " iteration 2") == (deep, "iteration 2")  # (a context of its own, not the construction's)



def test_an_error_under_a_literal_assumption_is_not_reported():
    """The model's run in a literal context takes its methods' int defaults as values: a view by
    a group count real callers pass, left at its default 0, failed there (an error in working
    code, transformers' edgetam_video). The same failure in any other context is reported."""
    from types import SimpleNamespace

    from shapehint.analysis.frames import Frame
    from shapehint.analysis.literal_contexts import label
    from shapehint.analysis.reporter import Reporter
    from shapehint.analysis.sink import Sink
    from shapehint.shapes.values import Span

    def reported(context: str) -> list:
        reporter = Reporter(Sink("m.py"))
        frame = Frame({}, "Attention.forward", SimpleNamespace(depth=0), {}, context=context)
        reporter.report(frame, Span(7, 4, 7, 20), "SH103", "o.view(b, groups, -1): cannot infer -1", [])
        return [code for _, code, _ in reporter.sink.diagnostic_keys()]

    assert reported(label("Model.__init__:35", "impl", "plain")) == []
    assert reported("Model.__init__:35") == ["SH103"]
    assert reported("") == ["SH103"]
