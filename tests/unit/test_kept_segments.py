"""Two slices of one tensor of unknown rank keep the same unknown axes (analysis/kept_segments.py,
ops/common.apart).

`x[..., :h]` and `x[..., h:]` of `[B, *x, d]` (both of x's sides read, so B may be the last axis)
each set B and the segment apart into a segment of their own. Both set apart the same axes of
the same tensor: one segment for both lets `torch.cat((-x2, x1), dim=-1)` (rotary embeddings'
`rotate_half`) give `[*?, d]`, where two fresh segments left it unknown (issue 28: Mistral's and
Llama's attention after their rotary embedding). Slices of two different tensors keep segments of
their own. Each claimed shape is checked against torch (meta tensors) at several ranks."""
import pytest

from shapehint.analysis.api import analyze_source

from .infer_values import value_at

SRC = '''import torch


def rotate(x):
    b = x.shape[0]
    d = x.shape[-1]
    x1 = x[..., : d // 2]
    x2 = x[..., d // 2 :]
    y = torch.cat((-x2, x1), dim=-1)
    return y


def two(x, z):
    b = x.shape[0] + z.shape[0]
    d = x.shape[-1] + z.shape[-1]
    u = x[..., :1]
    v = z[..., :1]
    w = torch.cat((u, v), dim=-1)
    return w
'''


@pytest.fixture(scope="module")
def values():
    return analyze_source(SRC, "m.py").infer_json()["values"]


def test_halves_of_one_tensor_are_joined_back(values):
    y = value_at(values, "rotate", 9, "y", required=True)
    shape = y["shape"]
    assert shape is not None and shape[-1] == "x.shape[-1]" and shape[0].startswith("*"), shape
    torch = pytest.importorskip("torch")
    scope: dict = {}
    exec(compile(SRC, "m.py", "exec"), scope)
    for dims in ((6,), (2, 6), (2, 3, 8), (2, 3, 4, 10)):
        x = torch.empty(*dims, device="meta")
        got = scope["rotate"](x)
        assert got.shape[-1] == x.shape[-1] and got.shape == x.shape  # (the analysis claims the last axis)


def test_slices_of_two_tensors_keep_their_own_axes(values):
    # (x and z may have different ranks: no shape of the cat is claimed)
    w = value_at(values, "two", 18, "w")
    assert w is None or w["shape"] is None or w["shape"][0].startswith("*"), w
    torch = pytest.importorskip("torch")
    scope: dict = {}
    exec(compile(SRC, "m.py", "exec"), scope)
    with pytest.raises(RuntimeError):
        scope["two"](torch.empty(2, 3, 4, device="meta"), torch.empty(2, 4, device="meta"))
