import torch
import torch.nn as nn


class Down(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, kernel_size=3, stride=2, padding=1)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        B, C, H, W = x.shape
        assert C == 3 and H >= 3
        y = self.conv(x)
        n = H // 2
        z = y.mean(dim=(2, 3))
        out = self.head(z)
        return out
