from enum import Enum

import torch
from torch import nn


class Checked(Enum):
    @classmethod
    def verify(cls, obj):
        if obj is not None:
            if type(obj) is str:
                obj = cls[obj.replace(cls.__name__ + ".", "")]
            elif not isinstance(obj, cls):
                raise TypeError("not a weight of this model")
        return obj


class SmallWeights(Checked):
    V1 = "v1"


class Widths:
    def __init__(self, stem, head):
        self.stem = stem
        self.head = head

    @classmethod
    def scaled(cls, base, mult):
        return cls(base * mult, base * mult * 4)


class Net(nn.Module):
    def __init__(self, widths, num_classes=1000):
        super().__init__()
        self.stem = nn.Conv2d(3, widths.stem, 3, 2, 1)
        self.head = nn.Conv2d(widths.stem, widths.head, 1)
        self.fc = nn.Linear(widths.head, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.head(x)
        x = x.mean((2, 3))
        x = self.fc(x)
        return x


def net_small(*, weights=None, **kwargs):
    weights = SmallWeights.verify(weights)
    if weights is not None:
        kwargs["num_classes"] = len(weights.value)
    return Net(Widths.scaled(8, 2), **kwargs)
