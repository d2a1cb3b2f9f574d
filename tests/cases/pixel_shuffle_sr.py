"""ESPCN-style super-resolution: features at low resolution, sub-pixel convolution upsampling."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.tensor_type import TensorType


class ESPCN(nn.Module):
    def __init__(self, upscale=3, channels=3):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, 64, kernel_size=5, padding=2)
        self.conv2 = nn.Conv2d(64, 32, kernel_size=3, padding=1)
        self.conv3 = nn.Conv2d(32, channels * upscale ** 2, kernel_size=3, padding=1)
        self.shuffle = nn.PixelShuffle(upscale)
        self.unshuffle = nn.PixelUnshuffle(upscale)

    def forward(self, lr: TensorType([4, 3, 24, 20])):
        f1 = torch.tanh(self.conv1(lr))  # expect: [4, 64, 24, 20]
        f2 = torch.tanh(self.conv2(f1))  # expect: [4, 32, 24, 20]
        sub = self.conv3(f2)  # expect: [4, 27, 24, 20]
        hr = self.shuffle(sub)  # expect: [4, 3, 72, 60]
        back = self.unshuffle(hr)  # expect: [4, 27, 24, 20]
        bicubic = F.interpolate(lr, scale_factor=3, mode="bicubic", align_corners=False)  # expect: [4, 3, 72, 60]
        out = torch.sigmoid(hr + bicubic)  # expect: [4, 3, 72, 60]
        return out, back


model = ESPCN()
low = torch.rand(4, 3, 24, 20)  # expect: [4, 3, 24, 20]
high = torch.rand(4, 3, 72, 60)  # expect: [4, 3, 72, 60]
sr, packed = model(low)  # expect: sr=[4, 3, 72, 60]; packed=[4, 27, 24, 20]
loss = F.l1_loss(sr, high)  # expect: []
mse = F.mse_loss(sr, high, reduction="none").mean(dim=(1, 2, 3))  # expect: [4]
psnr = 10 * torch.log10(1.0 / mse)  # expect: [4]
manual = F.pixel_shuffle(torch.randn(1, 16, 5, 5), 2)  # expect: [1, 4, 10, 10]
down = F.pixel_unshuffle(high, 2)  # expect: [4, 12, 36, 30]
