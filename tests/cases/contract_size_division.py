"""A size divided by zero raises ZeroDivisionError (SH112): `H // window` with `window=0` given
explicitly by a caller, `T % chunk` with `chunk=0`, `dim // heads` with `heads=0`; the same
code given non-zero sizes is fine. (A default of 0 alone is no error: tests/unit/test_contracts.py.)"""
import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor

# entry: windows_ok; inputs: x=[B,16,32,32]
# entry: chunks_ok; inputs: x=[B,12,8]
# entry: heads_ok; inputs: x=[B,12,64]
# entry: windows_zero; inputs: x=[B,16,32,32]
# entry: chunks_zero; inputs: x=[B,12,8]
# entry: heads_zero; inputs: x=[B,12,64]
# verify: B=2; B=1


class Windows(nn.Module):
    def __init__(self, window=4):
        super().__init__()
        self.window = window

    def forward(self, x):
        B, C, H, W = x.shape
        rows = x.reshape(B, C, H // self.window, self.window, W)  # expect: [B, C, H // 4, 4, W]
        return rows.sum(dim=3)


def windows_ok(x: Float[Tensor, "B 16 32 32"]):
    layer = Windows(window=4)
    y = layer(x)  # expect: [B, 16, 8, 32]
    z = y.flatten(2)  # expect: [B, 16, 256]
    return z


def windows_zero(x: Float[Tensor, "B 16 32 32"]):
    layer = Windows(window=0)
    doubled = x * 2  # expect: [B, 16, 32, 32]
    return layer(doubled)  # E[SH112]


def chunks(x: Float[Tensor, "B T 8"], chunk: int):
    T = x.shape[1]
    left = T % chunk
    kept = x[:, :T - left]
    return kept


def chunks_ok(x: Float[Tensor, "B 12 8"]):
    kept = chunks(x, 5)  # expect: [B, 10, 8]
    mean = kept.mean(dim=1)  # expect: [B, 8]
    return mean


def chunks_zero(x: Float[Tensor, "B 12 8"]):
    scaled = x / 4  # expect: [B, 12, 8]
    return chunks(scaled, 0)  # E[SH112]


class Heads(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.proj = nn.Linear(dim, dim // heads)

    def forward(self, x):
        return self.proj(x)


def heads_ok(x: Float[Tensor, "B 12 64"]):
    layer = Heads(64, 8)
    y = layer(x)  # expect: [B, 12, 8]
    t = y.transpose(1, 2)  # expect: [B, 8, 12]
    return t


def heads_zero(x: Float[Tensor, "B 12 64"]):
    shifted = x - 1  # expect: [B, 12, 64]
    layer = Heads(64, 0)  # E[SH112]
    return layer(shifted)
