import json

import torch
import torch.nn as nn

SPEC = json.loads('[["Conv2d", 3, 8, 3, 1, 1], ["ReLU"], ["AdaptiveAvgPool2d", 1]]')


def build(spec):
    return nn.Sequential(*[getattr(nn, name)(*args) for name, *args in spec])


class Opaque(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = build(SPEC)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        h = self.features(x)
        f = torch.flatten(h, 1)
        return self.head(f)
