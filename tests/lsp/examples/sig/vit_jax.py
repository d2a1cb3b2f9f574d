import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Patches(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, 32, 16, 16)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)
