"""A deep CNN applied to 16x16 thumbnails: four poolings bring the map to 1x1 and the final
unpadded 3x3 convolution has a kernel larger than its input."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: ThumbNet(); inputs: x=[B,3,16,16]
# verify: B=2; B=1


class ThumbNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.c3 = nn.Conv2d(32, 64, 3, padding=1)
        self.c4 = nn.Conv2d(64, 64, 3, padding=1)
        self.c5 = nn.Conv2d(64, 128, 3)
        self.fc = nn.Linear(128, 5)

    def forward(self, x: Float[Tensor, "B 3 16 16"]):
        h = F.max_pool2d(F.relu(self.c1(x)), 2)  # expect: [B, 16, 8, 8]
        h = F.max_pool2d(F.relu(self.c2(h)), 2)  # expect: [B, 32, 4, 4]
        h = F.max_pool2d(F.relu(self.c3(h)), 2)  # expect: [B, 64, 2, 2]
        h = F.max_pool2d(F.relu(self.c4(h)), 2)  # expect: [B, 64, 1, 1]
        desc = h.flatten(1)  # expect: [B, 64]
        desc = F.normalize(desc, dim=1)  # expect: [B, 64]
        sim = desc @ desc.t()  # expect: [B, B]
        ranks = sim.argsort(dim=1, descending=True)  # expect: [B, B]
        h = self.c5(h)  # E[SH107]
        return self.fc(h.flatten(1)), ranks
