"""A VGG-ish stem where the second convolution was declared with 64 input channels although the
first produces 32: the clash holds for every image size."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: Stem(); inputs: x=[B,3,H,W]
# verify: B=2,H=32,W=32; B=1,H=17,W=9


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(32)
        self.conv1b = nn.Conv2d(32, 32, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(64, 64, kernel_size=3, padding=1)
        self.conv3 = nn.Conv2d(64, 128, kernel_size=3, stride=2, padding=1)

    def forward(self, x: Float[Tensor, "B 3 H W"]):
        B, _, H, W = x.shape
        gray = x.mean(dim=1, keepdim=True)  # expect: [B, 1, H, W]
        x = x - gray  # expect: [B, 3, H, W]
        h = self.conv1(x)  # expect: [B, 32, H, W]
        h = F.relu(self.bn1(h))  # expect: [B, 32, H, W]
        h = self.conv1b(h)  # expect: [B, 32, H, W]
        skip = h  # expect: [B, 32, H, W]
        h = F.relu(h)  # expect: [B, 32, H, W]
        pooled = F.max_pool2d(h, 2)  # expect: [B, 32, H//2, W//2]
        up = F.interpolate(pooled, size=(H, W))  # expect: [B, 32, H, W]
        h = self.conv2(h)  # E[SH101]
        h = self.conv3(F.relu(h + skip))
        return h
