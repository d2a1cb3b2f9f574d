"""Annotated variables are contracts (SH110), every one of them: an annotation is not executed,
so a wrong one does not end the path, and the next annotated variable of the same function is
checked too. A right one teaches its names (`k` below) for the rest of the function."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: Attention(); inputs: x=[B,T,64]
# entry: three_wrong; inputs: x=[B,T,64]
# entry: learns_a_name; inputs: x=[B,T,64], w=[64,128]
# verify: B=2,T=6; B=1,T=9


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(64, 192)
        self.out = nn.Linear(64, 64)

    def forward(self, x: Float[Tensor, "B T 64"]):
        qkv: Float[Tensor, "B T 192"] = self.qkv(x)  # expect: [B, T, 192]
        q, k, v = qkv.split(64, dim=-1)  # expect: q=[B, T, 64]; k=[B, T, 64]; v=[B, T, 64]
        scores: Float[Tensor, "B T T"] = q @ k.transpose(1, 2)  # expect: [B, T, T]
        weights = F.softmax(scores, dim=-1)  # expect: [B, T, T]
        mixed: Float[Tensor, "B T 64"] = weights @ v  # expect: [B, T, 64]
        out = self.out(mixed)  # expect: [B, T, 64]
        return out


def three_wrong(x: Float[Tensor, "B T 64"]):
    w = torch.randn(64, 32)  # expect: [64, 32]
    h = x @ w  # expect: [B, T, 32]
    wide: Float[Tensor, "B T 64"] = h  # E[SH110]
    flat: Float[Tensor, "B 32"] = h  # E[SH110]
    summed = h.sum(dim=1)  # expect: [B, 32]
    pooled: Float[Tensor, "B 16"] = summed  # E[SH110]
    return pooled


def learns_a_name(x: Float[Tensor, "B T 64"], w: Float[Tensor, "64 H"]):
    h: Float[Tensor, "B T 128"] = x @ w  # expect: [B, T, 128]
    back = h @ w.transpose(0, 1)  # expect: [B, T, 64]
    return back
