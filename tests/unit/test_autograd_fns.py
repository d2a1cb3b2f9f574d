"""Custom autograd functions (analysis/autograd_fns.py): `Fn.apply(x)` is what `Fn.forward`
returns, given a context first, or nothing first when the class has `setup_context`. Each claimed
shape is checked against torch on the meta device."""
import types

import pytest

from shapehint.analysis.api import analyze_source

SRC = '''import torch
from torch import nn


def _fwd(x):
    return 0.5 * x * (x + 2).clamp(min=0, max=2)


class Soft(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _fwd(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return grad_output * x


class Flat(torch.autograd.Function):
    @staticmethod
    def forward(x, start):
        return x.flatten(start)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.start = inputs[1]

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


class SoftAct(nn.Module):
    def forward(self, x):
        return Soft.apply(x)


class Block(nn.Module):
    def __init__(self, c: int, d: int):
        super().__init__()
        self.conv = nn.Conv2d(c, d, 3, padding=1)
        self.act = SoftAct()

    def forward(self, x):
        h = self.conv(x)
        y = self.act(h)
        z = Flat.apply(h, 1)
        return y
'''


def _values():
    return {v["name"]: v["shape"] for v in analyze_source(SRC, "fns.py").infer_json()["values"]
            if v["function"] == "Block.forward"}


def test_apply_is_the_forward_given_a_context():
    assert _values()["y"] == ["x.shape[0]", "d", "x.shape[2]", "x.shape[3]"]


def test_apply_of_a_forward_without_a_context():
    assert _values()["z"] == ["x.shape[0]", "d*x.shape[2]*x.shape[3]"]


def test_the_shapes_are_torchs():
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "fns.py", "exec"), ns)
    m = ns["Block"](3, 6).to("meta")
    x = torch.empty(2, 3, 5, 7, device="meta")
    h = m.conv(x)
    got = {"y": m.act(h), "z": ns["Flat"].apply(h, 1)}
    env = {"x": types.SimpleNamespace(shape=x.shape), "d": 6}
    claims = _values()
    for name in got:
        assert [eval(str(d), {}, env) for d in claims[name]] == list(got[name].shape)
