"""ECOOP'24 Listing 5: a branch on the rank of a convolution's output."""
import torch
from torch.fx.tensor_type import Dyn, TensorType


class ConvControlFlow(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(in_channels=512, out_channels=512, kernel_size=3)

    def forward(self, x: TensorType([Dyn, Dyn, Dyn, Dyn])):
        if self.conv(x).dim() == 4:
            # the convolution keeps the rank
            return torch.relu(x)
        else:
            return torch.nn.Dropout(x)
