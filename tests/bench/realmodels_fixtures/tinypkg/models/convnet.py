import torch
from torch import nn

from ..layers import ConvNormAct


class Block(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.body = ConvNormAct(cin, cout, stride)
        self.skip = nn.Conv2d(cin, cout, 1, stride) if stride != 1 or cin != cout else nn.Identity()

    def forward(self, x):
        y = self.body(x)
        s = self.skip(x)
        out = y + s
        return out


class TinyNet(nn.Module):
    def __init__(self, widths=(8, 16, 32), num_classes=10):
        super().__init__()
        self.stem = ConvNormAct(3, widths[0], 2)
        self.stages = nn.Sequential(*[self._make_stage(a, b) for a, b in zip(widths[:-1], widths[1:])])
        self.head = nn.Linear(widths[-1], num_classes)

    def _make_stage(self, cin, cout):
        return nn.Sequential(Block(cin, cout, 2), Block(cout, cout))

    def forward(self, x):
        h = self.stem(x)
        h = self.stages(h)
        pooled = h.mean(dim=(2, 3))
        logits = self.head(pooled)
        return logits
