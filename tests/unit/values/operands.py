"""Opaque operands of a tensor's arithmetic (tests/unit/test_values_operands.py)."""
import torch
from torch import nn


class Norm(nn.Module):
    def __init__(self, size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, h):
        var = h.pow(2).mean(-1, keepdim=True)
        shifted = var + self.eps
        h = h * torch.rsqrt(shifted)
        return self.weight * h


class Scaled(nn.Module):
    def __init__(self, config, n: int, scale):
        super().__init__()
        self.norm = Norm(config.width, eps=config.norm_eps)
        self.gain = config.gain
        self.n = n
        self.scale = scale

    def forward(self, x):
        assert x.shape == (2, 5, 8)
        normed = self.norm(x)
        times_n = x * self.n
        gained = self.gain * x
        scaled = x * self.scale
        ids = torch.zeros(2, 5, dtype=torch.int64)
        shifted_ids = ids + self.gain
        return {"normed": normed, "times_n": times_n, "gained": gained, "scaled": scaled,
                "shifted_ids": shifted_ids}
