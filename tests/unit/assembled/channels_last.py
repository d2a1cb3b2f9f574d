"""A block that normalises channels last (issue 27): the class built directly, with no factory in
view, so its input has no known rank until `permute` names every axis."""
from functools import partial
from typing import Callable, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class ChannelNorm(nn.LayerNorm):
    """A LayerNorm over the channels of an NCHW tensor: built as `ChannelNorm(c)` somewhere else."""

    def forward(self, x: Tensor) -> Tensor:
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        x = x.permute(0, 3, 1, 2)
        return x


class Reorder(nn.Module):
    def __init__(self, order: list):
        super().__init__()
        self.order = order

    def forward(self, x):
        return torch.permute(x, self.order)


def drop_samples(x: Tensor, p: float, training: bool = True) -> Tensor:
    if not training or p == 0.0:
        return x
    keep = 1.0 - p
    mask = torch.empty([x.shape[0]] + [1] * (x.ndim - 1), dtype=x.dtype).bernoulli_(keep)
    return x * mask / keep


class DropSamples(nn.Module):
    def __init__(self, p: float):
        super().__init__()
        self.p = p

    def forward(self, x):
        return drop_samples(x, self.p, self.training)


class MixerBlock(nn.Module):
    def __init__(self, width, scale: float, p: float, norm: Optional[Callable[..., nn.Module]] = None):
        super().__init__()
        if norm is None:
            norm = partial(nn.LayerNorm, eps=1e-6)
        self.body = nn.Sequential(
            nn.Conv2d(width, width, kernel_size=5, padding=2, groups=width),
            Reorder([0, 2, 3, 1]),
            norm(width),
            nn.Linear(width, 3 * width),
            nn.GELU(),
            nn.Linear(3 * width, width),
            Reorder([0, 3, 1, 2]),
        )
        self.scale = nn.Parameter(torch.ones(width, 1, 1) * scale)
        self.drop = DropSamples(p)

    def forward(self, x: Tensor) -> Tensor:
        y = self.scale * self.body(x)
        y = self.drop(y)
        y += x
        return y
