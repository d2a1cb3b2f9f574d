"""A workspace module that is present: `fallbacks.py` imports it inside a `try`."""
import torch.nn as nn


class HalfNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        return x[..., : self.n // 2]
