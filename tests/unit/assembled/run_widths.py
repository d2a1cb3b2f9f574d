"""A network whose stage widths are only known when it runs (computed from a list the caller
passes): its layers are built with sizes the analysis does not know, collected as (name, stage)
pairs in a loop and put in a Sequential through an OrderedDict or a comprehension."""
from collections import OrderedDict

import torch
from torch import nn


class Stage(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride=2, padding=1)
        self.norm = nn.BatchNorm2d(cout)

    def forward(self, x):
        return self.norm(self.conv(x))


class Net(nn.Module):
    def __init__(self, widths: list, stem: int = 16, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Conv2d(3, stem, 3, padding=1)
        cur = stem
        pairs = []
        for i, w in enumerate(widths):
            pairs.append((f"stage{i + 1}", Stage(cur, w)))
            cur = w
        self.trunk = nn.Sequential(OrderedDict(pairs))
        self.same_trunk = nn.Sequential(*[s for _, s in pairs])
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(cur, num_classes)

    def forward(self, x):
        x = self.stem(x)
        y = self.same_trunk(x)
        x = self.trunk(x)
        x = self.pool(x)
        x = x.flatten(start_dim=1)
        x = self.fc(x)
        return x
