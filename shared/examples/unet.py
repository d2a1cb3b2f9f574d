"""U-Net for segmentation: DoubleConv blocks, max-pool down, ConvTranspose2d up and skip
concatenations. H and W must be multiples of 8 (three poolings), stated by an assertion."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: UNet(); inputs: x=[B,1,H,W]
# verify: B=2,H=64,W=64; B=1,H=32,W=48; B=3,H=16,W=8


class DoubleConv(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.block = nn.Sequential(
            nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=False), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True),
            nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True),
        )

    def forward(self, x):
        B, _, H, W = x.shape
        y = self.block(x)  # expect: [B, out_ch, H, W]
        return y


class Up(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.up = nn.ConvTranspose2d(in_ch, in_ch // 2, kernel_size=2, stride=2)
        self.conv = DoubleConv(in_ch, out_ch)

    def forward(self, x, skip):
        B, _, H, W = x.shape
        x = self.up(x)  # expect: [B, in_ch//2, 2*H, 2*W]
        assert x.shape[2:] == skip.shape[2:]
        x = torch.cat([skip, x], dim=1)  # expect: [B, skip.shape[1] + in_ch//2, 2*H, 2*W]
        out = self.conv(x)  # expect: [B, out_ch, 2*H, 2*W]
        return out


class UNet(nn.Module):
    def __init__(self, in_channels=1, n_classes=2):
        super().__init__()
        self.inc = DoubleConv(in_channels, 32)
        self.down1 = DoubleConv(32, 64)
        self.down2 = DoubleConv(64, 128)
        self.bottom = DoubleConv(128, 256)
        self.up1 = Up(256, 128)
        self.up2 = Up(128, 64)
        self.up3 = Up(64, 32)
        self.outc = nn.Conv2d(32, n_classes, kernel_size=1)

    def forward(self, x: Float[Tensor, "B 1 H W"]):
        B, _, H, W = x.shape
        assert H % 8 == 0 and W % 8 == 0
        x1 = self.inc(x)  # expect: [B, 32, H, W]
        x2 = self.down1(F.max_pool2d(x1, 2))  # expect: [B, 64, H//2, W//2]
        x3 = self.down2(F.max_pool2d(x2, 2))  # expect: [B, 128, H//4, W//4]
        x4 = self.bottom(F.max_pool2d(x3, 2))  # expect: [B, 256, H//8, W//8]
        u1 = self.up1(x4, x3)  # expect: [B, 128, H//4, W//4]
        u2 = self.up2(u1, x2)  # expect: [B, 64, H//2, W//2]
        u3 = self.up3(u2, x1)  # expect: [B, 32, H, W]
        logits = self.outc(u3)  # expect: [B, 2, H, W]
        probs = logits.softmax(dim=1)  # expect: [B, 2, H, W]
        mask = probs.argmax(dim=1)  # expect: [B, H, W]
        return logits, mask
