"""A small CNN for 32x32 images with a classic mistake: the first Linear layer was sized for
28x28 inputs. ShapeHint reports it before anything runs:

    error SH101: Linear expects 400 input features, got 576 (on the line marked `bug:`)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: SmallCNN(); inputs: x=[B,3,32,32]
# verify: B=2; B=7


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, kernel_size=5, padding=2)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        # sized for 28x28 inputs (16 x 5 x 5 after two poolings); 32x32 inputs give 16 x 6 x 6
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x: Float[Tensor, "B 3 32 32"]):
        c1 = F.relu(self.conv1(x))  # expect: [B, 6, 32, 32]
        p1 = self.pool(c1)  # expect: [B, 6, 16, 16]
        c2 = F.relu(self.conv2(p1))  # expect: [B, 16, 12, 12]
        p2 = self.pool(c2)  # expect: [B, 16, 6, 6]
        flat = torch.flatten(p2, 1)  # expect: [B, 576]
        scaled = flat / flat.norm(dim=1, keepdim=True)  # expect: [B, 576]
        clipped = scaled.clamp(-1.0, 1.0)  # expect: [B, 576]
        mean_act = clipped.mean(dim=0)  # expect: [576]
        h = F.relu(self.fc1(clipped))  # bug: fc1 wants 400 features, the flattened map has 576 (SH101)
        h = F.relu(self.fc2(h))
        return self.fc3(h)
