"""ConvExample (ECOOP'24 Listing 2): two convolutions want 2 and 4 channels of the same x, so
dimension 1 of x can only be Dyn: no static migration."""
import torch
from torch.fx.tensor_type import Dyn, TensorType


class ConvExample(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(in_channels=2, out_channels=2, kernel_size=2)
        self.conv2 = torch.nn.Conv2d(in_channels=4, out_channels=2, kernel_size=2)

    def forward(self, x: TensorType([Dyn, Dyn, Dyn, Dyn])):
        self.conv1(x)
        return self.conv2(x)
