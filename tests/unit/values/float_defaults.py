"""A float default types what is passed for it (issue 28): `eps=config.eps` for `eps=1e-6` is a
float, so adding it to a tensor keeps the tensor's shape."""
import torch
from torch import nn


class Norm(nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        v = x.pow(2).mean(-1, keepdim=True)
        scaled = x * torch.rsqrt(v + self.eps)
        return self.weight * scaled


class Block(nn.Module):
    def __init__(self, config):  # unannotated: its attributes are known by name only
        super().__init__()
        self.norm = Norm(config.d_model, eps=config.eps)
        self.proj = nn.Linear(config.d_model, config.d_model)

    def forward(self, h: torch.Tensor):
        assert h.dim() == 3
        normed = self.norm(h)
        out = self.proj(normed)
        return {"normed": normed, "out": out}
