"""Stems and layer factories that CNN families choose at construction time (issue 27): a
string picks a deep or a plain stem, a width is a size parameter on one path and a size
computed from it on the other, a factory checks what kind of callable it was given, and a
same-padding convolution reads the per-axis stride torch stores."""
import functools
import math
import types

import torch
import torch.nn.functional as F
from torch import nn


class TwoStems(nn.Module):
    def __init__(self, stem_kind: str = '', base: int = 16, in_ch: int = 3):
        super().__init__()
        deep = 'deep' in stem_kind
        if deep:
            widths = (base, base)
            if 'thin' in stem_kind:
                widths = (3 * (base // 4), base)
            self.stem = nn.Sequential(
                nn.Conv2d(in_ch, widths[0], 3, stride=2, padding=1),
                nn.Conv2d(widths[0], widths[1], 3, padding=1))
        else:
            self.stem = nn.Conv2d(in_ch, base, 7, stride=2, padding=3)

    def forward(self, x):
        y = self.stem(x)
        return y


def norm_from(spec):
    """A norm layer from a class, a partial of one, a function or a name."""
    assert isinstance(spec, (type, str, types.FunctionType, functools.partial))
    bound = {}
    if isinstance(spec, functools.partial):
        bound.update(spec.keywords)
        spec = spec.func
    if isinstance(spec, str):
        spec = {"bn": nn.BatchNorm2d, "in": nn.InstanceNorm2d}[spec]
    if bound:
        spec = functools.partial(spec, **bound)
    return spec


class NormedConv(nn.Module):
    def __init__(self, width: int = 8, norm=nn.BatchNorm2d):
        super().__init__()
        norm = norm_from(norm)
        self.conv = nn.Conv2d(3, width, 3, padding=1)
        self.norm = norm(width)

    def forward(self, x):
        y = self.norm(self.conv(x))
        return y


def same_amount(size: int, k: int, s: int, d: int):
    return max((math.ceil(size / s) - 1) * s + (k - 1) * d + 1 - size, 0)


class SameConv(nn.Conv2d):
    """A convolution padded like TensorFlow's 'SAME': the pad depends on the input's size."""

    def __init__(self, cin, cout, k, stride=1):
        super().__init__(cin, cout, k, stride, 0)

    def forward(self, x):
        h, w = x.shape[-2:]
        ph = same_amount(h, self.weight.shape[-2], self.stride[0], self.dilation[0])
        pw = same_amount(w, self.weight.shape[-1], self.stride[1], self.dilation[1])
        x = F.pad(x, (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2))
        y = F.conv2d(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return y


def conv_for(cin, cout, k, stride=1, padding=''):
    if isinstance(padding, str):
        padding = padding.lower()
        if padding == 'same' and stride > 1:
            return SameConv(cin, cout, k, stride)
        return nn.Conv2d(cin, cout, k, stride, padding=0 if padding == 'valid' else k // 2)
    return nn.Conv2d(cin, cout, k, stride, padding=padding)


class PaddedStem(nn.Module):
    def __init__(self, pad: str = '', width: int = 8):
        super().__init__()
        self.conv = conv_for(3, width, 3, stride=2, padding=pad)

    def forward(self, x):
        y = self.conv(x)
        return y


def run_same():
    x = torch.zeros(2, 3, 9, 9)
    m = SameConv(3, 8, 3, stride=2)
    out = m(x)
    return out


class NormAct(nn.BatchNorm2d):
    """A batch norm with its activation, normalising through the functional form."""

    def __init__(self, num_features, eps=1e-5, act_layer=nn.ReLU):
        super().__init__(num_features, eps=eps)
        self.act = act_layer()

    def forward(self, x):
        x = F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                         self.training, 0.1, self.eps)
        return self.act(x)


class GroupNormAct(nn.GroupNorm):
    def __init__(self, num_channels, num_groups=4, act_layer=nn.ReLU):
        super().__init__(num_groups, num_channels)
        self.act = act_layer()


WITH_ACT = dict(batchnorm=NormAct, batchnorm2d=NormAct, groupnorm=GroupNormAct)
WITH_ACT_KINDS = {cls for _, cls in WITH_ACT.items()}
TAKES_ACT = {NormAct, GroupNormAct}


def norm_act_from(norm, act=None):
    """The norm+act layer for a plain norm class (found by its name), a norm+act class, or a
    partial of either."""
    assert isinstance(norm, (type, str, types.FunctionType, functools.partial))
    bound = {}
    if isinstance(norm, functools.partial):
        bound.update(norm.keywords)
        norm = norm.func
    if isinstance(norm, str):
        layer = WITH_ACT[norm.lower()]
    elif norm in WITH_ACT_KINDS:
        layer = norm
    else:
        layer = WITH_ACT.get(norm.__name__.lower(), None)
        assert layer is not None, norm
    if layer in TAKES_ACT:
        bound.setdefault("act_layer", act)
    return functools.partial(layer, **bound) if bound else layer


class NormActBlock(nn.Module):
    def __init__(self, width: int = 8, norm_layer=nn.BatchNorm2d, act_layer=nn.ReLU6):
        super().__init__()
        self.conv = nn.Conv2d(3, width, 3, padding=1)
        self.bn = norm_act_from(norm_layer, act_layer)(width)

    def forward(self, x):
        y = self.bn(self.conv(x))
        return y


def act_for(act_layer, act_kwargs=None, inplace=False):
    act_kwargs = act_kwargs or {}
    act_kwargs.setdefault("inplace", inplace)
    return act_layer(**act_kwargs)


class RatioBlock(nn.Module):
    """A bottleneck whose width is a float ratio of its output (`ratio: float = 1`: callers pass
    0.25), and an activation built from keyword arguments given as `{}`."""

    def __init__(self, cin: int, cout: int, ratio: float = 1):
        super().__init__()
        mid = int(round(cout * ratio))
        self.reduce = nn.Conv2d(cin, mid, 1)
        self.act = act_for(nn.ReLU, act_kwargs={})
        self.expand = nn.Conv2d(mid, cout, 1)

    def forward(self, x):
        y = self.act(self.reduce(x))
        z = self.expand(y)
        return z
