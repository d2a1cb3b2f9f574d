"""ECOOP'24 Listings 3 and 4: one convolution; migration under range constraints."""
import torch
from torch.fx.tensor_type import Dyn, TensorType


class ConvExample(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv2 = torch.nn.Conv2d(in_channels=4, out_channels=8, kernel_size=3)

    def forward(self, x: TensorType([Dyn, Dyn, Dyn, Dyn])):
        return self.conv2(x)
