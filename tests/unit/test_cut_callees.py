"""A callee of an imported function cut at the imported call's share (analysis/costs.py:
`cut_callee`). A builder in another module (`build(cls, **kw)`) builds the file's model, then, on
an arm its open `**kw` leaves undecided, wraps it in an adapter whose construction runs the
imported call's share of steps out. Before, the whole builder call was unknown, so the factory
returned nothing and its model had no construction context; now the adapter alone is unknown,
the path that builds it ends there with an unknown result, the builder's other paths run, and the
factory returns the model on the path that does not wrap it. The adapter is never taken for the
model (a factory that always wraps has no context), and only the first cut is forgiven (a
builder with two such arms is cut whole, as before). Every shape claimed is
checked against torch by running the same package."""
import importlib
import sys

import torch

from shapehint.analysis.api import analyze_source

ADAPTER_BODY = "".join(f"        self.a{i} = {i}\n" for i in range(800))  # ~1,600 steps: past a 1,500 share

BUILDER = f'''import torch.nn as nn


class Wrapper(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model
{ADAPTER_BODY}

def build(cls, **kw):
    features = kw.pop("features_only", False)
    model = cls(**kw)
    if features:
        model = Wrapper(model)
    return model


def build_twice(cls, **kw):
    features = kw.pop("features_only", False)
    hooks = kw.pop("hooks", False)
    model = cls(**kw)
    if features:
        model = Wrapper(model)
    if hooks:
        model = Wrapper(model)
    return model
'''

MODEL = '''import torch.nn as nn
from .builder import build, build_twice


class Net(nn.Module):
    def __init__(self, width, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, width, 3, 2, 1)
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        x = self.conv(x)
        x = x.mean((2, 3))
        x = self.head(x)
        return x


def net_a(**kw):
    return build(Net, width=8, **kw)


def net_b(**kw):
    return build_twice(Net, width=12, **kw)


def net_w(**kw):
    return build(Net, width=16, features_only=True, **kw)
'''


def _contexts(tmp_path) -> dict:
    (tmp_path / "cb").mkdir()
    for name, text in (("__init__.py", ""), ("builder.py", BUILDER), ("m.py", MODEL)):
        (tmp_path / "cb" / name).write_text(text)
    path = tmp_path / "cb" / "m.py"
    r = analyze_source(MODEL, str(path))
    return {(v["line"], c["context"].split(":")[0]): c["shape"] for v in r.infer_json()["values"]
            for c in v.get("contexts", [])}


def _line(text: str) -> int:
    return MODEL.splitlines().index(text) + 1


def _torch(root, x) -> list:
    sys.path.insert(0, str(root))
    try:
        for name in [m for m in sys.modules if m == "cb" or m.startswith("cb.")]:
            del sys.modules[name]
        model = importlib.import_module("cb.m").net_a(num_classes=7)
        conv = model.conv(x)
        return [list(conv.shape), list(conv.mean((2, 3)).shape), list(model(x).shape)]
    finally:
        sys.path.remove(str(root))


def _evaluated(shape: list, x) -> list:
    return [d if isinstance(d, int) else eval(d, {}, {"x": x, "num_classes": 7}) for d in shape]


def test_the_model_a_builder_may_wrap_has_its_factory_context(tmp_path):
    contexts = _contexts(tmp_path)
    x = torch.randn(2, 3, 19, 13)
    lines = [_line("        x = self.conv(x)"), _line("        x = x.mean((2, 3))"), _line("        x = self.head(x)")]
    got = [contexts.get((line, "net_a")) for line in lines]
    assert None not in got
    assert [_evaluated(s, x) for s in got] == _torch(tmp_path, x)
    assert got[0][1] == 8  # the factory's own width, not the class's `width`


def test_the_adapter_is_never_the_model_and_a_second_cut_is_not_forgiven(tmp_path):
    factories = {f for _, f in _contexts(tmp_path)}
    assert "net_w" not in factories  # it always wraps: the model is not what it returns
    assert "net_b" not in factories  # two arms that wrap: the builder runs its share out, unknown
