"""Shape-dependent branches of the kinds Q3 handles: rank, a dimension bound, divisibility, two dims."""
import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(64, 64)

    def forward(self, x: Float[Tensor, "B T 64"], y: Float[Tensor, "B S 64"]):
        assert x.size(1) <= 512
        if x.dim() == 3:
            h = self.proj(x)
        else:
            h = x
        if x.size(1) < 1000:
            h = h * 2
        if x.size(1) < 100:
            h = h + 1
        T = x.shape[1]
        if T % 2 == 0:
            h = h[:, ::2]
        if x.shape[1] == y.shape[1]:
            h = h + y
        return h
