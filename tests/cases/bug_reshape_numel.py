"""MNIST classifier whose view() after the feature extractor assumes 8x8 maps; 28x28 inputs give
7x7 after two poolings, so 128*8*8 elements per sample cannot be formed."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: MnistNet(); inputs: x=[B,1,28,28]
# verify: B=2; B=5


class MnistNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 64, 3, padding=1)
        self.conv2 = nn.Conv2d(64, 128, 3, padding=1)
        self.bn = nn.BatchNorm2d(128)
        self.fc = nn.Linear(128 * 8 * 8, 10)

    def forward(self, x: Float[Tensor, "B 1 28 28"]):
        B = x.size(0)
        x = (x - 0.1307) / 0.3081  # expect: [B, 1, 28, 28]
        h = F.relu(self.conv1(x))  # expect: [B, 64, 28, 28]
        h = F.max_pool2d(h, 2)  # expect: [B, 64, 14, 14]
        h = F.relu(self.bn(self.conv2(h)))  # expect: [B, 128, 14, 14]
        h = F.max_pool2d(h, 2)  # expect: [B, 128, 7, 7]
        energy = h.pow(2).sum(dim=(2, 3))  # expect: [B, 128]
        norm = energy.sqrt().unsqueeze(-1).unsqueeze(-1)  # expect: [B, 128, 1, 1]
        h = h / (norm + 1e-6)  # expect: [B, 128, 7, 7]
        flat = h.view(B, 128 * 8 * 8)  # E[SH103]
        return self.fc(flat)
