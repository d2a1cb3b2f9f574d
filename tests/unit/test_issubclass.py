"""`issubclass(cls, classinfo)` is decided where the classes' ancestry is read (analysis/typetests.py
`subclass_of`), so a stage that picks its layout from the class of its mixer
(`self.tokens = issubclass(mixer, Attention)`) runs one arm in each context, not a join of both.
The program is our own; its shapes are checked against PyTorch on meta tensors."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.objects import BuiltinFn, ChoiceV, ClassObj
from shapehint.analysis.typetests import subclass_of
from shapehint.shapes.values import ExtRef, TupleV, UnknownV

MODULE = ExtRef("torch.nn.Module")


def _cls(name, *bases):
    return ClassObj(name, name, None, list(bases), {})


BASE = _cls("Base", MODULE)
CHILD = _cls("Child", BASE)
OTHER = _cls("Other", MODULE)
FOREIGN = _cls("Foreign", ExtRef("transformers.PreTrainedModel"))


@pytest.mark.parametrize("value,classinfo,want", [
    (CHILD, BASE, True),
    (CHILD, CHILD, True),
    (BASE, CHILD, False),
    (OTHER, BASE, False),
    (OTHER, TupleV((CHILD, BASE)), False),
    (CHILD, TupleV((OTHER, BASE)), True),
    (CHILD, MODULE, True),
    (CHILD, BuiltinFn("object"), True),
    (ExtRef("torch.nn.Identity"), BASE, False),  # a torch class never derives from a class of ours
    (ExtRef("torch.nn.Identity"), ExtRef("torch.nn.Module"), None),  # (not read)
    (FOREIGN, BASE, None),  # its ancestry is not ours to know
    (CHILD, ExtRef("collections.abc.Iterable"), None),  # (an ABC may claim it by its methods)
    (ChoiceV((CHILD, BASE)), BASE, True),  # every option answers alike
    (ChoiceV((CHILD, OTHER)), BASE, None),
    (UnknownV(), BASE, None),
    (CHILD, UnknownV(), None),
    (BuiltinFn("len"), BASE, None),
])
def test_subclass_of(value, classinfo, want):
    assert subclass_of(value, classinfo) is want


SRC = '''import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.proj = nn.Linear(dim, 2 * dim)

    def forward(self, x):
        return self.proj(x)


class GatedAttention(Attention):
    pass


class Pooling(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.pool = nn.AvgPool2d(3, 2, 1)

    def forward(self, x):
        return self.pool(x)


class Stage(nn.Module):
    def __init__(self, dim: int, mixer=Pooling):
        super().__init__()
        self.tokens = issubclass(mixer, Attention)
        self.mixer = mixer(dim)

    def forward(self, x: torch.Tensor):
        B, C, H, W = x.shape
        if self.tokens:
            x = x.reshape(B, C, -1).transpose(1, 2)
        y = self.mixer(x)
        return y


class PoolNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.s = Stage(8)

    def forward(self, x: torch.Tensor):
        assert x.shape == (2, 8, 6, 6)
        z = self.s(x)
        return z


class AttnNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.s = Stage(8, GatedAttention)

    def forward(self, x: torch.Tensor):
        assert x.shape == (2, 8, 6, 6)
        z = self.s(x)
        return z
'''
WANT = {"PoolNet": [2, 8, 3, 3], "AttnNet": [2, 36, 16]}


def test_the_mixer_class_picks_the_stage_layout_in_each_context():
    r = analyze_source(SRC, "m.py")
    out = r.infer_json()
    got = {v["function"].split(".")[0]: v["shape"] for v in out["values"] if v["name"] == "z"}
    assert got == WANT
    y = next(v for v in out["values"] if v["name"] == "y")
    by_context = {c["context"].split(".")[0]: c["shape"] for c in y["contexts"]}
    # the default (Pooling) keeps the layout; the attention subclass makes tokens
    assert by_context["PoolNet"] == ["x.shape[0]", "x.shape[1]", "(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"]
    assert by_context["AttnNet"] == ["x.shape[0]", "x.shape[2]*x.shape[3]", 16]
    assert not [d for d in r.diagnostics if d.severity == "error"]


def test_the_claims_hold_in_torch():
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    with torch.device("meta"):
        for name, want in WANT.items():
            assert list(ns[name]()(torch.empty(2, 8, 6, 6)).shape) == want
