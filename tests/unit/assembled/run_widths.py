"""A network whose stage widths are only known when it runs (computed from a list the caller
passes): its layers are built with sizes the analysis does not know, collected as (name, stage)
pairs in a loop and put in a Sequential through an OrderedDict or a comprehension."""
from collections import OrderedDict

import torch
from torch import nn


class Stage(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.proj = nn.Linear(cin, cout)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.proj(x))


class Net(nn.Module):
    def __init__(self, widths: list, stem: int = 16, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Linear(3, stem)
        cur = stem
        pairs = []
        for i, w in enumerate(widths):
            pairs.append((f"stage{i + 1}", Stage(cur, w)))
            cur = w
        self.trunk = nn.Sequential(OrderedDict(pairs))
        self.same_trunk = nn.Sequential(*[s for _, s in pairs])
        self.fc = nn.Linear(cur, num_classes)

    def forward(self, x):
        batch, features = x.shape
        x = self.stem(x)
        y = self.same_trunk(x)
        x = self.trunk(x)
        x = self.fc(x)
        return x
