"""A feature pyramid whose author asserted the lateral width: the lateral 1x1 conv produces 64
channels, the assertion demands 128, so it fails for every input."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: TinyFPN(); inputs: c3=[B,128,H,W], c4=[B,256,H2,W2]
# verify: B=2,H=16,W=16,H2=8,W2=8; B=1,H=20,W=12,H2=10,W2=6


class TinyFPN(nn.Module):
    def __init__(self):  # the width fixed (a `width=64` default is one value: 128 would pass)
        super().__init__()
        self.lat3 = nn.Conv2d(128, 64, 1)
        self.lat4 = nn.Conv2d(256, 64, 1)
        self.smooth = nn.Conv2d(64, 64, 3, padding=1)

    def forward(self, c3: Float[Tensor, "B 128 H W"], c4: Float[Tensor, "B 256 H2 W2"]):
        p4 = self.lat4(c4)  # expect: [B, 64, H2, W2]
        up = F.interpolate(p4, size=c3.shape[-2:], mode="nearest")  # expect: [B, 64, H, W]
        l3 = self.lat3(c3)  # expect: [B, 64, H, W]
        p3 = self.smooth(l3 + up)  # expect: [B, 64, H, W]
        p5 = F.max_pool2d(p4, 1, stride=2)  # expect: [B, 64, (H2 - 1)//2 + 1, (W2 - 1)//2 + 1]
        g3 = p3.mean(dim=(2, 3))  # expect: [B, 64]
        g4 = p4.mean(dim=(2, 3))  # expect: [B, 64]
        both = torch.stack([g3, g4], dim=1)  # expect: [B, 2, 64]
        assert p3.shape[1] == 128, "FPN width must be 128"  # E[SH108]
        return p3, p4, p5, both
