"""Swin-style window attention helpers whose window size is a `List[int]` parameter
(torchvision's swin_transformer): shapes in terms of `window_size[0]` and `window_size[1]`,
and the entry's concrete windows of 4 x 4."""
from typing import List

import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor

# entry: Net(); inputs: x=[B,16,16,32]
# verify: B=2; B=1


def window_partition(x: torch.Tensor, window_size: List[int]):
    B, H, W, C = x.shape
    wh, ww = window_size[0], window_size[1]
    x = x.view(B, H // wh, wh, W // ww, ww, C)  # expect: [B, H // wh, wh, W // ww, ww, C]
    x = x.permute(0, 1, 3, 2, 4, 5)  # expect: [B, H // wh, W // ww, wh, ww, C]
    windows = x.reshape(-1, wh * ww, C)  # expect: [B * (H // wh) * (W // ww), wh * ww, C]
    return windows


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(32, 96)
        self.proj = nn.Linear(32, 32)

    def forward(self, x: Float[Tensor, "B 16 16 32"]):
        w = window_partition(x, [4, 4])  # expect: [B*16, 16, 32]
        qkv = self.qkv(w)  # expect: [B*16, 16, 96]
        q, k, v = qkv.chunk(3, dim=-1)  # expect: q=[B*16, 16, 32]; k=[B*16, 16, 32]; v=[B*16, 16, 32]
        att = (q @ k.transpose(-2, -1)).softmax(-1)  # expect: [B*16, 16, 16]
        out = self.proj(att @ v)  # expect: [B*16, 16, 32]
        grid = out.view(-1, 4, 4, 4, 4, 32)  # expect: [B, 4, 4, 4, 4, 32]
        return grid
