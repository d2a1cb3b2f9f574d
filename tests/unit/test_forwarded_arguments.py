"""A subclass that hands its base every argument it gets (`super().__init__(*args, **kwargs)`):
in the class's generic analysis those are the arguments of a construction not in view
(`OpenArgsV`, spread.py), so the base's `__init__` runs with its defaults left open, and the
parts it builds are the subclass's. Before, the spread of an unknown `*args` gave up on the
call: the base never ran and every part it builds was unknown. An imported base given them is
the subclass's construction (costs.FORWARDED_CALL_STEPS). A torch container given them stays
unbuilt and unknown, never an empty one (the identity). Each shape is checked against torch."""
import pytest

torch = pytest.importorskip("torch")

from shapehint.analysis import costs  # noqa: E402
from shapehint.analysis.api import analyze_source  # noqa: E402

from .program_runs import run_package, write_package  # noqa: E402
from .test_wrong_shapes_models import _agrees, _program  # noqa: E402

BASE = '''import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, dim: int = 16, classes: int = 10, init: str = ''):
        super().__init__()
        self.dim = dim
        self.proj = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)
'''

CHILD = '''

class Child(Base):
    def __init__(self, *args, **kwargs):
        mode = kwargs.pop('init', '')
        super().__init__(*args, **kwargs, init='skip')
        self.extra = nn.Linear(self.dim, self.dim)

    def forward(self, x):
        b, t, d = x.shape
        h = self.proj(x)
        h = self.extra(h)
        out = self.head(h)
        return h, out
'''


def _values(text, path="fwd.py"):
    res = analyze_source(text, path)
    assert not [d for d in res.diagnostics if d.severity == "error"]
    return {(v["function"], v["name"]): v["shape"] for v in res.infer_json()["values"]}


@pytest.mark.parametrize("args, kwargs, env", [((), {}, {"dim": 16, "classes": 10}),
                                               ((8, 3), {}, {"dim": 8, "classes": 3}),
                                               ((), {"classes": 5, "init": "x"}, {"dim": 16, "classes": 5})])
def test_the_base_given_every_argument_builds_the_subclasss_parts(args, kwargs, env):
    text = BASE + CHILD
    shown = _values(text)
    out = shown.get(("Child.forward", "out"))
    assert out == ["b", "t", "classes"], shown  # missing before: the base never ran
    model = _program(text)["Child"](*args, **kwargs)
    x = torch.zeros(2, 7, env["dim"])
    h, y = model(x)
    env = dict(env, b=2, t=7)
    assert _agrees(shown[("Child.forward", "h")], list(h.shape), env)
    assert _agrees(out, list(y.shape), env)


CONTAINERS = '''import torch
from torch import nn


class Wrapped(nn.Sequential):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)

    def run(self, x):
        b, t, d = x.shape
        y = self(x)
        return y


class Stack(nn.Sequential):
    def __init__(self, *layers):
        super().__init__(*layers)

    def run(self, x):
        b, t, d = x.shape
        y = self(x)
        return y
'''


def test_a_container_given_every_argument_is_not_the_identity():
    shown = _values(CONTAINERS)
    scope = _program(CONTAINERS)
    x = torch.zeros(2, 7, 4)
    for cls in ("Wrapped", "Stack"):
        y = scope[cls](torch.nn.Linear(4, 3)).run(x)
        got = shown.get((f"{cls}.run", "y"))
        # `[b, t, d]` before: an empty Sequential, where the layers given change the shape
        assert got is None or _agrees(got, list(y.shape), {"b": 2, "t": 7, "d": 4}), (cls, got)


# an imported base whose constructor takes more steps than one imported call's share
FILES = {
    "fwd/__init__.py": "",
    "fwd/base.py": BASE.replace('''        self.head = nn.Linear(dim, classes)
''', '''        self.head = nn.Linear(dim, classes)
''' + "".join(f"        self.w{i} = dim + {i}\n" for i in range(600))),
    "fwd/m.py": "import torch\nfrom torch import nn\nfrom .base import Base\n" + CHILD + '''

def run(x):
    return Child()(x)
''',
}


def _package_shapes(path):
    res = analyze_source(path.read_text(), str(path))
    return {(v["function"], v["name"]): v["shape"] for v in res.infer_json()["values"]}


def test_an_imported_base_given_every_argument_is_the_subclasss_construction(tmp_path, monkeypatch):
    path = write_package(tmp_path, FILES)
    x = torch.zeros(2, 7, 16)
    h, y = run_package(tmp_path, "fwd.m", x)
    shown = _package_shapes(path)
    env = {"b": 2, "t": 7, "dim": 16, "classes": 10}
    assert shown.get(("Child.forward", "out")) == ["b", "t", "classes"], shown
    assert _agrees(shown[("Child.forward", "out")], list(y.shape), env)
    assert _agrees(shown[("Child.forward", "h")], list(h.shape), env)
    # within one imported call's share only, the base is cut off: its parts unknown
    monkeypatch.setattr(costs, "FORWARDED_CALL_STEPS", costs.IMPORTED_CALL_STEPS)
    assert _package_shapes(path).get(("Child.forward", "out")) is None


HELPER = '''import torch
from torch import nn


def make(dim=16):
    return nn.Linear(dim, dim)


class Net(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()
        self.layer = make(*args, **kwargs)

    def forward(self, x):
        b, d = x.shape
        y = self.layer(x)
        return y
'''


def test_a_helper_given_every_argument_does_not_take_its_defaults_as_given():
    shown = _values(HELPER)
    y = _program(HELPER)["Net"](8)(torch.zeros(2, 8))
    got = shown.get(("Net.forward", "y"))
    # never `[b, 16]`: `Net(8)` builds an 8-wide layer
    assert got is None or _agrees(got, list(y.shape), {"b": 2, "d": 8}), got
