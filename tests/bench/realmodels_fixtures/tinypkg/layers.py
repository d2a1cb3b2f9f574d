import torch
from torch import nn


class ConvNormAct(nn.Sequential):
    def __init__(self, cin, cout, stride=1):
        super().__init__(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


def patchify(x, size):
    b, c, h, w = x.shape
    x = x.reshape(b, c, h // size, size, w // size, size)
    return x.permute(0, 2, 4, 1, 3, 5).flatten(3).flatten(1, 2)
