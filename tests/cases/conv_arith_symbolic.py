"""Convolution arithmetic with symbolic spatial sizes: padding, stride, dilation, ceil_mode."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: ConvArith(); inputs: x=[B,3,H,W]
# verify: B=2,H=32,W=32; B=3,H=37,W=50; B=1,H=64,W=29


class ConvArith(nn.Module):
    def __init__(self):
        super().__init__()
        self.same = nn.Conv2d(3, 16, kernel_size=3, padding=1)
        self.down = nn.Conv2d(16, 32, kernel_size=3, stride=2, padding=1)
        self.valid = nn.Conv2d(32, 32, kernel_size=5)
        self.dilated = nn.Conv2d(32, 32, kernel_size=3, padding=2, dilation=2)
        self.wide = nn.Conv2d(32, 48, kernel_size=(1, 7), padding=(0, 3))
        self.pool_floor = nn.MaxPool2d(kernel_size=3, stride=2)
        self.pool_ceil = nn.MaxPool2d(kernel_size=2, stride=2, ceil_mode=True)
        self.avg = nn.AvgPool2d(kernel_size=3, stride=1, padding=1)
        self.head = nn.Linear(48, 5)

    def forward(self, x: Float[Tensor, "B 3 H W"]):
        a = self.same(x)  # expect: [B, 16, H, W]
        b = self.down(a)  # expect: [B, 32, (H - 1)//2 + 1, (W - 1)//2 + 1]
        c = self.dilated(b)  # expect: [B, 32, (H - 1)//2 + 1, (W - 1)//2 + 1]
        d = self.pool_ceil(c)  # expect: [B, 32, ((H - 1)//2 + 2)//2, ((W - 1)//2 + 2)//2]
        e = self.avg(d)  # expect: [B, 32, ((H - 1)//2 + 2)//2, ((W - 1)//2 + 2)//2]
        f = self.wide(e)  # expect: [B, 48, ((H - 1)//2 + 2)//2, ((W - 1)//2 + 2)//2]
        g = F.max_pool2d(a, kernel_size=2)  # expect: [B, 16, H//2, W//2]
        h = self.pool_floor(a)  # expect: [B, 16, (H - 3)//2 + 1, (W - 3)//2 + 1]
        v = self.valid(b)  # expect: [B, 32, (H - 1)//2 - 3, (W - 1)//2 - 3]
        u = F.avg_pool2d(a, 4, stride=4, ceil_mode=True)  # expect: [B, 16, (H + 3)//4, (W + 3)//4]
        pooled = F.adaptive_avg_pool2d(f, 1)  # expect: [B, 48, 1, 1]
        vec = pooled.flatten(1)  # expect: [B, 48]
        logits = self.head(vec)  # expect: [B, 5]
        return logits, g, h, v, u
