"""What both arms of an undecided `if` require holds past it (`frames.keep_shared_facts`): a norm
that takes a fused kernel or the plain one by a global flag requires, on either path, its input
to end with the normalized size, so a residual `x + norm(x)` keeps x's size instead of
broadcasting the two to `max(...)` (timm's LayerNorm2d, `if self._fast_norm`; the regression
that made branch E20 lose metaformer's channel). A requirement of one arm only does not hold
past it. The programs are our own; the shapes are checked against torch for both values of the
flag."""
import pytest

from .program_runs import infer, run

NORM = '''import torch
import torch.nn as nn
import torch.nn.functional as F

FAST = False


def set_fast(on=True):
    global FAST
    FAST = on


def fused_norm(x, shape):
    return F.layer_norm(x, shape)


class Norm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.d = d
        self.fast = FAST

    def forward(self, x):
        if self.fast:
            y = fused_norm(x, (self.d,))
        else:
            y = F.layer_norm(x, (self.d,))
        out = x + torch.zeros(self.d)
        return out


class OneArm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.d = d
        self.fast = FAST

    def forward(self, x):
        if self.fast:
            y = F.layer_norm(x, (self.d,))
        else:
            y = x
        out = x + torch.zeros(self.d)
        return out
'''

# a stage whose input is pooled or downsampled by the flag (its channel a join, `?`, named C by
# the unpacking) and then meets a channels-first LayerNorm subclass taking either kernel
STAGE = '''import torch
import torch.nn as nn
import torch.nn.functional as F

FAST = False


def set_fast(on=True):
    global FAST
    FAST = on


def fused_norm(x, shape, weight, bias, eps):
    return F.layer_norm(x, shape, weight, bias, eps)


class LN2d(nn.LayerNorm):
    def __init__(self, c: int):
        super().__init__(c)
        self.fast = FAST

    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        if self.fast:
            x = fused_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        else:
            x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class Stage(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.down = nn.Conv2d(cin, cout, 3, stride=2, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.norm = LN2d(cout)

    def forward(self, x):
        x = self.down(x) if FAST else self.pool(x)
        B, C, H, W = x.shape
        y = x + self.norm(x)
        return y
'''


def _shapes(tmp_path, program, function):
    answer = infer(tmp_path, program)
    assert not [d for d in answer["diagnostics"] if d.get("severity") == "error"]
    return {v["name"]: v["shape"] for v in answer["values"] if v["function"] == function}


def test_both_arms_requirement_holds_past_the_if(tmp_path):
    assert _shapes(tmp_path, NORM, "Norm.forward")["out"] == ["*x", "d"]


def test_one_arms_requirement_does_not(tmp_path):
    assert _shapes(tmp_path, NORM, "OneArm.forward")["out"] == ["*x", "max(d, x.shape[-1])"]


def test_a_joined_channel_keeps_its_name_past_the_norm(tmp_path):
    assert _shapes(tmp_path, STAGE, "Stage.forward")["y"] == ["B", "C", "H", "W"]


@pytest.mark.parametrize("fast", [False, True])
def test_against_torch(fast):
    torch = pytest.importorskip("torch")
    scope = run(NORM)
    scope["set_fast"](fast)
    x = torch.randn(2, 3, 5)
    assert list(scope["Norm"](5)(x).shape) == [2, 3, 5]  # [*x, d]
    one = torch.randn(2, 1)  # OneArm takes the plain arm without the flag: x's last size is free
    got = scope["OneArm"](5)(one) if not fast else scope["OneArm"](5)(torch.randn(2, 5))
    assert list(got.shape) == [2, 5]  # max(d, x.shape[-1]) = 5 either way
    stage = run(STAGE)
    stage["set_fast"](fast)
    y = stage["Stage"](8, 8)(torch.randn(2, 8, 16, 16))
    assert list(y.shape) == [2, 8, 8, 8]  # the channel C is the norm's width, 8, on either path
