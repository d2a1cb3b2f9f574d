"""A patch model whose patch weight comes from a helper looked up at run time: the analysis cannot
follow `F.conv2d` with it, so the code fixes no rank it can vouch for."""
import importlib

import torch.nn as nn
import torch.nn.functional as F


def patch_weight(dim, patch):
    return getattr(importlib.import_module("torch"), "randn")(dim, 3, patch, patch)


class PatchNet(nn.Module):
    def __init__(self, img_size=224, patch=8, dim=16):
        super().__init__()
        self.patch = patch
        self.weight = nn.Parameter(patch_weight(dim, patch))
        self.pos = nn.Parameter(getattr(importlib.import_module("torch"), "zeros")(1, (img_size // patch) ** 2, dim))
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        t = F.conv2d(x, self.weight, stride=self.patch)
        t = t.flatten(2).transpose(1, 2) + self.pos
        return self.head(t.mean(1))
