import torch
from torch import nn
from not_in_this_workspace import opaque_split


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.stride = stride
        self.conv = nn.Conv2d(cin, cout, 3, stride, 1)

    def forward(self, x):
        if self.stride == 1:
            y = opaque_split(x)
        else:
            y = self.conv(x)
        out = torch.relu(y)
        return out


class Net(nn.Module):
    def __init__(self, widths):
        super().__init__()
        blocks, cin = [], 3
        for w in widths:
            blocks += [Block(cin, w, 2), Block(w, w, 1)]
            cin = w
        self.blocks = nn.Sequential(*blocks)

    def forward(self, x):
        x = self.blocks(x)
        return x


def net_a():
    return Net([8, 16])
