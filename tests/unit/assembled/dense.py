from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn


class Layer(nn.Module):
    def __init__(self, cin, growth):
        super().__init__()
        self.norm = nn.BatchNorm2d(cin)
        self.conv = nn.Conv2d(cin, growth, 3, 1, 1, bias=False)

    def forward(self, inputs):
        prev = torch.cat(inputs, 1)
        return self.conv(F.relu(self.norm(prev)))


class Block(nn.ModuleDict):
    def __init__(self, n, cin, growth):
        super().__init__()
        for i in range(n):
            self.add_module("layer%d" % (i + 1), Layer(cin + i * growth, growth))

    def forward(self, x):
        feats = [x]
        for name, layer in self.items():
            new = layer(feats)
            feats.append(new)
        return torch.cat(feats, 1)


class Transition(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__()
        self.norm = nn.BatchNorm2d(cin)
        self.conv = nn.Conv2d(cin, cout, 1, bias=False)
        self.pool = nn.AvgPool2d(2, 2)


class Net(nn.Module):
    def __init__(self, growth=4, blocks=(2, 3), init=8, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(OrderedDict([("conv0", nn.Conv2d(3, init, 3, 1, 1))]))
        c = init
        for i, n in enumerate(blocks):
            self.features.add_module("block%d" % (i + 1), Block(n, c, growth))
            c = c + n * growth
            if i != len(blocks) - 1:
                self.features.add_module("trans%d" % (i + 1), Transition(c, c // 2))
                c = c // 2
        self.features.add_module("norm5", nn.BatchNorm2d(c))
        self.classifier = nn.Linear(c, num_classes)

    def forward(self, x):
        f = self.features(x)
        out = F.adaptive_avg_pool2d(f, (1, 1))
        out = torch.flatten(out, 1)
        out = self.classifier(out)
        return out
