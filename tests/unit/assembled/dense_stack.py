"""A dense block built directly (issue 27): a ModuleDict subclass registering any number of
units from one `add_module` in a loop of unknown count; each unit concatenates the list of
features it is given (or the one tensor) along the channels."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class DenseUnit(nn.Module):
    def __init__(self, cin: int, growth: int, widen: int):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, widen * growth, kernel_size=1, bias=False)
        self.norm2 = nn.BatchNorm2d(widen * growth)
        self.conv2 = nn.Conv2d(widen * growth, growth, kernel_size=3, padding=1, bias=False)

    def squeeze(self, inputs: list[Tensor]) -> Tensor:
        joined = torch.cat(inputs, 1)
        out = self.conv1(F.relu(self.norm1(joined)))
        return out

    def forward(self, x: Tensor) -> Tensor:
        if isinstance(x, Tensor):
            prev = [x]
        else:
            prev = x
        out = self.squeeze(prev)
        new = self.conv2(F.relu(self.norm2(out)))
        return new


class DenseStack(nn.ModuleDict):
    def __init__(self, n: int, cin: int, widen: int, growth: int):
        super().__init__()
        for i in range(n):
            self.add_module("unit%d" % (i + 1), DenseUnit(cin + i * growth, growth, widen))

    def forward(self, x0: Tensor) -> Tensor:
        feats = [x0]
        for name, unit in self.items():
            new = unit(feats)
            feats.append(new)
        return torch.cat(feats, 1)
