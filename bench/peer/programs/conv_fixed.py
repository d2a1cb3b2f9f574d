"""ConvExample fixed (ECOOP'24 Listing 3): one convolution; Q2 asks for a static migration
with 5 <= x[0] <= 20, 5 <= x[2] <= 20, 2 <= x[3] <= 10 (the paper's answer: [19, 4, 19, 9])."""
import torch
from torch.fx.tensor_type import Dyn, TensorType


class ConvFixed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv2 = torch.nn.Conv2d(in_channels=4, out_channels=2, kernel_size=2)

    def forward(self, x: TensorType([Dyn, Dyn, Dyn, Dyn])):
        return self.conv2(x)
