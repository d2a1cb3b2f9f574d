"""U-Net with concrete sizes: encoder features are kept for skip connections and concatenated
with the upsampled decoder features; bilinear upsampling variant in the last stage."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.tensor_type import TensorType


def double_conv(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU(inplace=True),
    )


class UNetSmall(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.enc1 = double_conv(3, 16)
        self.enc2 = double_conv(16, 32)
        self.enc3 = double_conv(32, 64)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(64, 32, kernel_size=2, stride=2)
        self.dec2 = double_conv(64, 32)
        self.dec1 = double_conv(32 + 16, 16)
        self.out = nn.Conv2d(16, n_classes, 1)

    def forward(self, x: TensorType((2, 3, 96, 128))):
        s1 = self.enc1(x)  # expect: [2, 16, 96, 128]
        s2 = self.enc2(self.pool(s1))  # expect: [2, 32, 48, 64]
        bott = self.enc3(self.pool(s2))  # expect: [2, 64, 24, 32]
        u2 = self.up2(bott)  # expect: [2, 32, 48, 64]
        m2 = torch.cat([u2, s2], dim=1)  # expect: [2, 64, 48, 64]
        d2 = self.dec2(m2)  # expect: [2, 32, 48, 64]
        u1 = F.interpolate(d2, scale_factor=2, mode="bilinear", align_corners=True)  # expect: [2, 32, 96, 128]
        m1 = torch.cat((u1, s1), 1)  # expect: [2, 48, 96, 128]
        d1 = self.dec1(m1)  # expect: [2, 16, 96, 128]
        logits = self.out(d1)  # expect: [2, 3, 96, 128]
        return logits


net = UNetSmall()
image = torch.randn(2, 3, 96, 128)  # expect: [2, 3, 96, 128]
target = torch.randint(0, 3, (2, 96, 128))  # expect: [2, 96, 128]
logits = net(image)  # expect: [2, 3, 96, 128]
loss = F.cross_entropy(logits, target)  # expect: []
one_hot = F.one_hot(target, num_classes=3).permute(0, 3, 1, 2).float()  # expect: [2, 3, 96, 128]
probs = logits.softmax(1)  # expect: [2, 3, 96, 128]
inter = (probs * one_hot).sum(dim=(2, 3))  # expect: [2, 3]
union = probs.sum(dim=(2, 3)) + one_hot.sum(dim=(2, 3))  # expect: [2, 3]
dice = 1 - (2 * inter + 1) / (union + 1)  # expect: [2, 3]
