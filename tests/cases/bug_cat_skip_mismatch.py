"""The original U-Net uses unpadded convolutions, so an encoder feature map is larger than the
upsampled decoder map; concatenating them without cropping fails on the spatial size."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: ValidUNet(); inputs: x=[B,1,64,64]
# verify: B=2; B=1


def valid_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3), nn.ReLU(), nn.Conv2d(cout, cout, 3), nn.ReLU())


class ValidUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = valid_block(1, 32)
        self.enc2 = valid_block(32, 64)
        self.up = nn.ConvTranspose2d(64, 32, kernel_size=2, stride=2)
        self.dec1 = valid_block(64, 32)
        self.head = nn.Conv2d(32, 2, 1)

    def forward(self, x: Float[Tensor, "B 1 64 64"]):
        s1 = self.enc1(x)  # expect: [B, 32, 60, 60]
        p1 = F.max_pool2d(s1, 2)  # expect: [B, 32, 30, 30]
        s2 = self.enc2(p1)  # expect: [B, 64, 26, 26]
        u1 = self.up(s2)  # expect: [B, 32, 52, 52]
        crop_h = (s1.shape[2] - u1.shape[2]) // 2
        cropped = s1[:, :, crop_h:crop_h + 52, crop_h:crop_h + 52]  # expect: [B, 32, 52, 52]
        ok = torch.cat([cropped, u1], dim=1)  # expect: [B, 64, 52, 52]
        d_ok = self.dec1(ok)  # expect: [B, 32, 48, 48]
        resized = F.interpolate(u1, size=(60, 60), mode="nearest")  # expect: [B, 32, 60, 60]
        also_ok = torch.cat([s1, resized], dim=1)  # expect: [B, 64, 60, 60]
        merged = torch.cat([s1, u1], dim=1)  # E[SH101]
        d1 = self.dec1(merged)
        return self.head(d1), d_ok
