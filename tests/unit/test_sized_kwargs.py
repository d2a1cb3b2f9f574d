"""A factory's construction context with its `**kwargs` holding sizes only (analysis/sized_kwargs.py).

`def net_050(**kwargs): return Net(width=0.5, **kwargs)`: the generic analysis holds that the
caller's keywords may replace every default `Net` is left at (`version='v1'`, `deep=False`), so
each layer a flag picks was unknown in the factory's context. The context now runs the factory
again with a `**kwargs` that may hold only sizes: the flags keep their defaults there, an int
default from 1 up (`num_classes`) stays a symbol. Every shape claimed is checked against torch
by building the model with the build the context stands for (`net_050(num_classes=7)`);
devicerun/builders.py counts the context only for such builds."""
import importlib
import os
import sys

import pytest
import torch

from shapehint.analysis import sized_kwargs
from shapehint.analysis.api import analyze_source
from shapehint.devicerun.builders import built_by

MODEL = '''import torch
import torch.nn as nn
from .builder import build


class Net(nn.Module):
    def __init__(self, width: float = 1.0, version: str = 'v1', num_classes: int = 1000, deep: bool = False,
                 drop: float = 0.0):
        super().__init__()
        c = int(16 * width)
        if version == 'v3':
            self.stem = nn.Conv2d(3, c * 2, 3)
            c = c * 2
        else:
            self.stem = nn.Conv2d(3, c, 3)
        self.body = nn.Conv2d(c, c * 3, 1) if deep else nn.Conv2d(c, c * 5, 1)
        self.head = nn.Linear(c * 3 if deep else c * 5, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.body(x)
        x = x.mean((2, 3))
        x = self.head(x)
        return x


class Small(Net):
    pass


def net_050(pretrained=False, **kwargs):
    return Net(width=0.5, **kwargs)


def _create(variant, width=1.0, **kwargs):
    cls = Small if kwargs.pop('small', False) else Net
    return build(cls, variant, width=width, **kwargs)


def net_built(pretrained=False, **kwargs):
    return _create('net_built', width=0.75, **kwargs)
'''

# a library's builder: resolves a configuration (more steps than one imported call may take),
# then builds the model class it is handed
BUILDER = '''def _config(variant):
    cfg = {}
''' + ''.join("    cfg['k%d'] = %d\n" % (i % 7, i) for i in range(2000)) + '''    cfg['variant'] = variant
    return cfg


def build(model_cls, variant, **kwargs):
    cfg = _config(variant)
    model = model_cls(**kwargs)
    model.cfg = cfg
    return model
'''

LINES = MODEL.splitlines()
STEM = LINES.index("        x = self.stem(x)") + 1
BODY = LINES.index("        x = self.body(x)") + 1
HEAD = LINES.index("        x = self.head(x)") + 1


def _package(tmp_path):
    os.makedirs(tmp_path / "sk")
    for name, text in (("__init__.py", ""), ("builder.py", BUILDER), ("m.py", MODEL)):
        (tmp_path / "sk" / name).write_text(text)
    return tmp_path / "sk" / "m.py"


def _contexts(path, line: int) -> dict:
    r = analyze_source(path.read_text(), str(path))
    return {c["context"].split(":")[0]: c["shape"] for v in r.infer_json()["values"] if v["line"] == line
            for c in v.get("contexts", [])}


def _torch(root, factory: str, x) -> list:
    sys.path.insert(0, str(root))
    try:
        for name in [m for m in sys.modules if m == "sk" or m.startswith("sk.")]:
            del sys.modules[name]
        model = getattr(importlib.import_module("sk.m"), factory)(num_classes=7)
        stem = model.stem(x)
        body = model.body(stem)
        return [list(stem.shape), list(body.shape), list(model(x).shape)]
    finally:
        sys.path.remove(str(root))


def _evaluated(shape: list, x) -> list:
    return [d if isinstance(d, int) else eval(d, {}, {"x": x, "num_classes": 7}) for d in shape]


@pytest.mark.parametrize("factory", ["net_050", "net_built"])
def test_the_factory_context_keeps_the_flags_defaults(tmp_path, factory):
    path = _package(tmp_path)
    x = torch.randn(2, 3, 11, 9)
    want = _torch(tmp_path, factory, x)
    for line, shape in zip((STEM, BODY, HEAD), want):
        got = _contexts(path, line)
        assert factory in got, (line, got)
        assert _evaluated(got[factory], x) == shape, (line, got[factory], shape)


def test_without_the_share_the_context_is_the_generic_one(tmp_path, monkeypatch):
    monkeypatch.setattr(sized_kwargs, "SIZED_STEPS", 0)
    got = _contexts(_package(tmp_path), BODY).get("net_050")
    assert got is not None and got[1] == "?"  # (`version` and `deep` either value: the channels unknown)


def test_the_forwards_past_their_share_run_in_the_generic_context(tmp_path, monkeypatch):
    """The first factory's model runs its forward in the sized context; once the sized contexts'
    forwards have taken ALL_FORWARD_STEPS in all, the next factory's runs in its generic one."""
    monkeypatch.setattr(sized_kwargs, "ALL_FORWARD_STEPS", 1)
    path = _package(tmp_path)
    x = torch.randn(2, 3, 11, 9)
    got = _contexts(path, BODY)
    assert _evaluated(got["net_050"], x) == _torch(tmp_path, "net_050", x)[1]
    assert got.get("net_built") is None or got["net_built"][1] == "?"
    monkeypatch.setattr(sized_kwargs, "ALL_FORWARD_STEPS", 0)
    assert _contexts(path, BODY)["net_050"][1] == "?"


def test_a_private_helper_has_no_sized_context(tmp_path):
    got = _contexts(_package(tmp_path), BODY).get("_create")
    assert got is None or got[1] == "?"


def test_a_build_is_in_the_context_only_when_it_passes_sizes(tmp_path):
    path = _package(tmp_path)
    text = path.read_text()
    assert "net_050" in built_by(["net_050(num_classes=10)"], text, str(path))
    assert "net_050" in built_by(["net_050()"], text, str(path))
    assert "net_050" in built_by(["net_050(pretrained=False, num_classes=3)"], text, str(path))
    for build in ("net_050(version='v3')", "net_050(deep=True)", "net_050(num_classes=10, deep=1)",
                  "net_050(width=2)", "net_050(num_classes=2.0)", "net_050(pretrained=True)",
                  "net_050(**cfg)", "net_050(small=1)"):
        assert "net_050" not in built_by([build], text, str(path)), build
    assert "net_built" in built_by(["net_built(num_classes=10)"], text, str(path))
    # (a private helper has no sized context: its generic one counts, as for any factory before)
    assert "_create" in built_by(["net_built(num_classes=10)"], text, str(path))
    # (a public factory called by another, with a flag not at its default: its context is not that build's)
    text += "\n\ndef net_wide(**kwargs):\n    return net_050(pretrained=True, **kwargs)\n"
    assert built_by(["net_wide(num_classes=10)"], text, str(path)) == {"net_wide"}


def test_openness_of_joined_dicts():
    assert sized_kwargs.wider(sized_kwargs.SIZES, False) is sized_kwargs.SIZES
    assert sized_kwargs.wider(sized_kwargs.SIZES, True) is True
    assert sized_kwargs.wider(False, False) is False


def test_a_library_builder_is_followed_past_one_imported_call_share(tmp_path, monkeypatch):
    """The builder resolves a configuration (more steps than IMPORTED_CALL_STEPS) before it builds
    the class it is handed: in the sized context an imported call has SIZED_CALL_STEPS."""
    from shapehint.analysis import costs
    path = _package(tmp_path)
    assert "net_built" in _contexts(path, HEAD)
    monkeypatch.setattr(costs, "SIZED_CALL_STEPS", 0)
    assert "net_built" not in _contexts(path, HEAD)


def test_the_sized_forward_may_leave_fewer_queries_undecided_at_the_full_limit(tmp_path, monkeypatch):
    """The sized context's forward asks Z3 within SIZED_UNDECIDED_AT_FULL more undecided queries at
    the full resource limit (contexts.Session.fewer_at_full); the job's allowance is back after it."""
    from shapehint.solver import contexts
    seen = []
    real = contexts.Session.fewer_at_full

    def spy(self, n):
        seen.append((n, self.undecided))
        return real(self, n)
    monkeypatch.setattr(contexts.Session, "fewer_at_full", spy)
    path = _package(tmp_path)
    x = torch.randn(2, 3, 11, 9)
    got = _contexts(path, BODY)
    assert _evaluated(got["net_050"], x) == _torch(tmp_path, "net_050", x)[1]  # (the forward ran)
    assert seen and all(n == sized_kwargs.SIZED_UNDECIDED_AT_FULL for n, _ in seen)
