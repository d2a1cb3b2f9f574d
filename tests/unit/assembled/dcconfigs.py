import copy
import math
from dataclasses import dataclass
from functools import partial
from typing import Callable

import torch
from torch import nn


@dataclass
class _Cfg:
    expand: int
    stride: int
    cin: int
    cout: int
    depth: int
    block: Callable

    @staticmethod
    def widen(c, mult):
        return max(8, int(c * mult + 4) // 8 * 8)


class Cfg(_Cfg):
    def __init__(self, expand, stride, cin, cout, depth, width=1.0, deeper=1.0, block=None):
        cin = self.widen(cin, width)
        cout = self.widen(cout, width)
        depth = int(math.ceil(depth * deeper))
        if block is None:
            block = Wide
        super().__init__(expand, stride, cin, cout, depth, block)


class Plain(nn.Module):
    def __init__(self, cnf, drop, norm):
        super().__init__()
        self.use_res = cnf.stride == 1 and cnf.cin == cnf.cout
        self.block = nn.Sequential(nn.Conv2d(cnf.cin, cnf.cout, 3, cnf.stride, 1), norm(cnf.cout))

    def forward(self, x):
        y = self.block(x)
        if self.use_res:
            y += x
        return y


class Wide(nn.Module):
    def __init__(self, cnf, drop, norm):
        super().__init__()
        hidden = cnf.widen(cnf.cin, cnf.expand)
        self.use_res = cnf.stride == 1 and cnf.cin == cnf.cout
        self.block = nn.Sequential(nn.Conv2d(cnf.cin, hidden, 1), norm(hidden),
                                   nn.Conv2d(hidden, hidden, 3, cnf.stride, 1, groups=hidden),
                                   nn.Conv2d(hidden, cnf.cout, 1))
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        y = self.block(x)
        if self.use_res:
            y = self.drop(y)
            y += x
        return y


class Net(nn.Module):
    def __init__(self, setting, drop_rate=0.2, num_classes=10):
        super().__init__()
        norm = nn.BatchNorm2d
        layers = [nn.Conv2d(3, setting[0].cin, 3, 2, 1)]
        total = sum(cnf.depth for cnf in setting)
        block_id = 0
        for cnf in setting:
            stage = []
            for _ in range(cnf.depth):
                c = copy.copy(cnf)
                if stage:
                    c.cin = c.cout
                    c.stride = 1
                drop = drop_rate * float(block_id) / total
                stage.append(c.block(c, drop, norm))
                block_id += 1
            layers.append(nn.Sequential(*stage))
        last = 4 * setting[-1].cout
        layers.append(nn.Conv2d(setting[-1].cout, last, 1))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(last, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.pool(x)
        x = torch.flatten(x, 1)
        x = self.head(x)
        return x


def settings(name, **kwargs):
    if name.startswith("wide"):
        c = partial(Cfg, width=kwargs.pop("width"), deeper=kwargs.pop("deeper"))
        return [c(1, 1, 16, 16, 1), c(4, 2, 16, 24, 2), c(4, 2, 24, 40, 1)]
    elif name.startswith("plain"):
        return [Cfg(1, 2, 16, 24, 2, block=Plain), Cfg(1, 1, 24, 32, 1, block=Plain)]
    raise ValueError(name)


def _net(setting, **kwargs):
    return Net(setting, **kwargs)


def net_wide(**kwargs):
    setting = settings("wide_a", width=1.5, deeper=1.0)
    return _net(setting, **kwargs)


def net_plain(**kwargs):
    setting = settings("plain_a")
    return _net(setting, **kwargs)
