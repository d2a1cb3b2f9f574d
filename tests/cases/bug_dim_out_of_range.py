"""Temporal pooling over [B, T, D] features written as if the input were [B, C, T, D]: the
transpose(2, 3) names a dimension that a 3-D tensor does not have."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: TemporalPool(); inputs: feats=[B,T,48]
# verify: B=2,T=9; B=1,T=2


class TemporalPool(nn.Module):
    def __init__(self, dim=48, out=8):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.proj = nn.Linear(dim, out)
        self.conv = nn.Conv1d(dim, dim, 3, padding=1)

    def forward(self, feats: Float[Tensor, "B T 48"]):
        s = self.score(feats)  # expect: [B, T, 1]
        w = s.softmax(dim=1)  # expect: [B, T, 1]
        pooled = (w * feats).sum(dim=1)  # expect: [B, 48]
        conv_in = feats.transpose(1, 2)  # expect: [B, 48, T]
        smoothed = self.conv(conv_in)  # expect: [B, 48, T]
        back = smoothed.transpose(-1, -2)  # expect: [B, T, 48]
        out = self.proj(pooled)  # expect: [B, 8]
        peak = back.max(dim=1).values  # expect: [B, 48]
        swapped = back.transpose(2, 3)  # E[SH105]
        return out, peak, swapped
