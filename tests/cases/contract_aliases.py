"""Shape aliases are read where they are used: a module-level `Tokens = Float[Tensor, ...]`, a
`TypeAlias`, and an alias imported from another module of the workspace (followed like any
other name). An operation that contradicts the aliased shape is then a provable error."""
from typing import TypeAlias

import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor

from _contract_types import Image

# entry: Classifier(); inputs: img=[B,3,H,W]
# entry: project; inputs: x=[B,T,64], w=[32,10]
# entry: score; inputs: x=[B,T,64], w=[64,10]
# entry: stem; inputs: img=[B,3,H,W]
# entry: widen; inputs: h=[B,T,128], w=[64,256]
# entry: wrong_stem; inputs: img=[B,3,H,W]
# verify: B=2,T=5,H=16,W=16; B=1,T=3,H=8,W=12

Tokens = Float[Tensor, "B T 64"]
Hidden: TypeAlias = Float[Tensor, "B T 128"]


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, img: Image) -> Float[Tensor, "B 10"]:
        feat = self.conv(img)  # expect: [B, 16, H, W]
        pooled = feat.mean(dim=(2, 3))  # expect: [B, 16]
        logits = self.fc(pooled)  # expect: [B, 10]
        return logits


def score(x: Tokens, w: Float[Tensor, "64 10"]):
    s = x @ w  # expect: [B, T, 10]
    return s


def project(x: Tokens, w: Float[Tensor, "32 10"]):
    return x @ w  # E[SH101]


def widen(h: Hidden, w: Float[Tensor, "64 256"]):
    doubled = torch.cat([h, h], dim=-1)  # expect: [B, T, 256]
    return h @ w  # E[SH101]


def stem(img: Image):
    conv = nn.Conv2d(3, 8, 3)
    out = conv(img)  # expect: [B, 8, H - 2, W - 2]
    gray = img.mean(dim=1, keepdim=True)  # expect: [B, 1, H, W]
    return out, gray


def wrong_stem(img: Image):
    conv = nn.Conv2d(1, 8, 3)
    scaled = img * 0.5  # expect: [B, 3, H, W]
    return conv(scaled)  # E[SH101]
