"""A ResNet-like network where the second stage's block was built with the wrong input width in
__init__: stage one outputs 128 channels, Block(64, 256) expects 64. The error is at the call."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: Net(); inputs: x=[B,3,H,W]
# verify: B=2,H=32,W=32; B=1,H=12,W=40


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.proj = nn.Conv2d(cin, cout, 1, bias=False)

    def forward(self, x):
        B, _, H, W = x.shape
        y = F.relu(self.bn(self.conv(x)))  # expect: [B, cout, H, W]
        y = y + self.proj(x)  # expect: [B, cout, H, W]
        return y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 3, padding=1)
        self.stage1 = Block(64, 128)
        self.stage2 = Block(64, 256)
        self.fc = nn.Linear(256, 10)

    def forward(self, x: Float[Tensor, "B 3 H W"]):
        x = (x - x.mean(dim=(2, 3), keepdim=True)) / (x.std(dim=(2, 3), keepdim=True) + 1e-5)  # expect: [B, 3, H, W]
        h = F.relu(self.stem(x))  # expect: [B, 64, H, W]
        ctx = F.adaptive_avg_pool2d(h, 1)  # expect: [B, 64, 1, 1]
        h = h * torch.sigmoid(ctx)  # expect: [B, 64, H, W]
        h1 = self.stage1(h)  # expect: [B, 128, H, W]
        h1 = F.max_pool2d(h1, 2)  # expect: [B, 128, H//2, W//2]
        side = self.stage2(h)  # expect: [B, 256, H, W]
        h2 = self.stage2(h1)  # E[SH101]
        return self.fc(h2.mean(dim=(2, 3))), side
