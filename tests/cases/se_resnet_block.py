"""Squeeze-and-Excitation residual block: global pooling, a bottleneck MLP on channels, view back
to [B, C, 1, 1] and broadcast-multiply; then CBAM-style spatial attention."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: SEResidual(); inputs: x=[B,64,H,W]
# verify: B=2,H=16,W=16; B=3,H=7,W=20; B=2,H=1,W=1


class SEResidual(nn.Module):
    def __init__(self, channels=64, reduction=16):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.fc1 = nn.Linear(channels, channels // reduction)
        self.fc2 = nn.Linear(channels // reduction, channels)
        self.spatial = nn.Conv2d(2, 1, kernel_size=7, padding=3)

    def forward(self, x: Float[Tensor, "B 64 H W"]):
        B, C, H, W = x.shape
        out = F.relu(self.bn1(self.conv1(x)))  # expect: [B, 64, H, W]
        out = self.bn2(self.conv2(out))  # expect: [B, 64, H, W]
        squeeze = F.adaptive_avg_pool2d(out, 1).view(B, C)  # expect: [B, 64]
        excite = F.relu(self.fc1(squeeze))  # expect: [B, 4]
        gate = torch.sigmoid(self.fc2(excite)).view(B, C, 1, 1)  # expect: [B, 64, 1, 1]
        out = out * gate  # expect: [B, 64, H, W]
        avg_map = out.mean(dim=1, keepdim=True)  # expect: [B, 1, H, W]
        max_map = out.amax(dim=1, keepdim=True)  # expect: [B, 1, H, W]
        both = torch.cat([avg_map, max_map], dim=1)  # expect: [B, 2, H, W]
        attn = torch.sigmoid(self.spatial(both))  # expect: [B, 1, H, W]
        out = out * attn  # expect: [B, 64, H, W]
        out = F.relu(out + x)  # expect: [B, 64, H, W]
        return out
