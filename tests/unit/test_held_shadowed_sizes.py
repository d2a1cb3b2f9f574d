"""A constructor's size that a method's local is named like (`batch, dim, c = x.shape` in a
patch merging built with `dim` channels) printed `?` in that method, since a bare `2*dim` would
read as the local, which holds another size (executor.shadow). Where the instance holds the
constructor's size as an attribute no other method assigns (`self.dim = dim`), the method prints
it by that attribute (`analysis/held_sizes.py`): `[B, T//4, 2*self.dim]`. Each claim is checked
against torch on the meta device, binding the locals and `self.X` to the run's values."""
import pytest

from shapehint.analysis.api import analyze_source
from .infer_values import named_dims_agree, value_at

SRC = '''import torch
import torch.nn as nn


class Merge(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.norm = nn.LayerNorm(4 * dim)
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x):
        batch, dim, c = x.shape
        y = x.reshape(batch, dim // 4, 4 * c)
        y = self.norm(y)
        y = self.reduction(y)
        return y


class Resized(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.proj = nn.Linear(dim, 2 * dim)

    def grow(self):
        self.dim = 2 * self.dim

    def forward(self, x):
        batch, dim, c = x.shape
        z = self.proj(x)
        return z


class Given(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.width = width
        self.proj = nn.Linear(width, 3 * width)

    def forward(self, x, width: int = 4):
        width = width + 1
        w = self.proj(x)
        return w
'''

MERGE_OUT = 16  # (line of `y = self.reduction(y)`)


def _values():
    return analyze_source(SRC, "merge.py").infer_json()["values"]


def test_a_shadowed_constructor_size_prints_by_the_attribute_that_holds_it():
    v = value_at(_values(), "Merge.forward", MERGE_OUT, "y", required=True)
    # (was `[batch, dim//4, ?]`: `2*dim` would have read as the local `dim`)
    assert v["shape"] == ["batch", "dim//4", "2*self.dim"]


@pytest.mark.parametrize("dim,tokens", [(8, 16), (12, 64), (3, 4)])
def test_the_attribute_named_size_agrees_with_torch(dim, tokens):
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(SRC, "merge.py", "exec"), ns)
    m = ns["Merge"](dim).to("meta")
    x = torch.empty(2, tokens, dim, device="meta")
    got = list(m(x).shape)
    v = value_at(_values(), "Merge.forward", MERGE_OUT, "y", required=True)
    env = {"batch": 2, "dim": tokens, "c": dim, "self.dim": m.dim}
    assert named_dims_agree(v["shape"], got, env) == 3


def test_an_attribute_another_method_assigns_names_nothing():
    v = value_at(_values(), "Resized.forward", 31, "z", required=True)
    assert "self.dim" not in str(v["shape"]) and v["shape"][-1] == "?"


def test_a_parameter_named_like_the_size_is_not_renamed():
    v = value_at(_values(), "Given.forward", 43, "w", required=True)
    assert "self.width" not in str(v["shape"])
