"""A convolution factory that picks its layer from its keyword arguments (issue 27): whether a
key was passed (`'experts' in kwargs`) and whether any size is a tuple (`any([...])`) decide
which layer is built, so a block built through it must not join the arm it does not take."""
import torch
import torch.nn as nn


def same_padding(kernel_size, stride=1, dilation=1, **_):
    if any([isinstance(v, (tuple, list)) for v in [kernel_size, stride, dilation]]):
        return [same_padding(k, s, d) for k, s, d in zip(kernel_size, stride, dilation)]
    return ((stride - 1) + dilation * (kernel_size - 1)) // 2


class RoutedConv(nn.Module):
    """Another layer the factory may build (never here): its output has a rank of its own."""

    def __init__(self, cin, cout, kernel_size, experts=2, **kwargs):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(cin, cout, kernel_size, **kwargs) for _ in range(experts)])

    def forward(self, x):
        return torch.stack([c(x) for c in self.convs], 1).flatten(3)


def make_conv(cin, cout, kernel_size, **kwargs):
    depthwise = kwargs.pop("depthwise", False)
    groups = cin if depthwise else kwargs.pop("groups", 1)
    if "experts" in kwargs and kwargs["experts"] > 0:
        return RoutedConv(cin, cout, kernel_size, groups=groups, **kwargs)
    return nn.Conv2d(cin, cout, kernel_size, padding=same_padding(kernel_size, **kwargs), groups=groups, **kwargs)


class Stem(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int = 2):
        super().__init__()
        self.dw = make_conv(cin, cin, 3, stride=stride, depthwise=True)
        self.pw = make_conv(cin, cout, 1)

    def forward(self, x):
        y = self.dw(x)
        y = self.pw(y)
        return y
