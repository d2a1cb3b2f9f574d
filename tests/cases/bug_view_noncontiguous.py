"""Multi-head self-attention that merges the heads with view() straight after transpose(): the
transposed tensor is not contiguous, so view(B, T, C) fails (reshape or .contiguous() needed)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: MHSA(); inputs: x=[B,16,64]
# verify: B=2; B=1


class MHSA(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.heads = 4  # fixed: a `heads=4` default is one value (heads=1 would view fine)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: Float[Tensor, "B 16 64"]):
        B, T, C = x.shape
        qkv = self.qkv(x)  # expect: [B, 16, 192]
        qkv = qkv.view(B, T, 3, self.heads, C // self.heads)  # expect: [B, 16, 3, 4, 16]
        qkv = qkv.permute(2, 0, 3, 1, 4)  # expect: [3, B, 4, 16, 16]
        q, k, v = qkv[0], qkv[1], qkv[2]  # expect: q=[B, 4, 16, 16]; k=[B, 4, 16, 16]; v=[B, 4, 16, 16]
        att = (q @ k.transpose(-2, -1)) * (C // self.heads) ** -0.5  # expect: [B, 4, 16, 16]
        att = att.softmax(dim=-1)  # expect: [B, 4, 16, 16]
        y = att @ v  # expect: [B, 4, 16, 16]
        y_t = y.transpose(1, 2)  # expect: [B, 16, 4, 16]
        merged = y_t.view(B, T, C)  # E[SH104]
        return self.proj(merged)
