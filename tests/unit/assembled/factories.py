import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride, 1)

    def forward(self, x):
        y = self.conv(x)
        return y


class Net(nn.Module):
    def __init__(self, widths, num_classes=10):
        super().__init__()
        blocks = []
        cin = 3
        for i, w in enumerate(widths):
            blocks.append(Block(cin, w, 2 if i % 4 == 0 else 1))
            cin = w
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.blocks(x)
        x = x.mean((2, 3))
        x = self.head(x)
        return x


def _net(base, **kwargs):
    return Net([base * (i + 1) for i in range(10)], **kwargs)


def net_1(**kwargs):
    return _net(2, **kwargs)


def net_2(**kwargs):
    return _net(3, **kwargs)


def net_3(**kwargs):
    return _net(4, **kwargs)


def net_4(**kwargs):
    return _net(5, **kwargs)


def net_5(**kwargs):
    return _net(6, **kwargs)


def net_6(**kwargs):
    return _net(7, **kwargs)


def net_7(**kwargs):
    return _net(8, **kwargs)


def net_8(**kwargs):
    return _net(9, **kwargs)


def net_9(**kwargs):
    return _net(10, **kwargs)


def net_10(**kwargs):
    return _net(11, **kwargs)


def net_11(**kwargs):
    return _net(12, **kwargs)


def net_12(**kwargs):
    return _net(13, **kwargs)
