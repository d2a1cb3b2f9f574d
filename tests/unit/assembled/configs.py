import copy
import math
from functools import partial

import torch
from torch import nn


def round_to(v, divisor=8):
    return max(divisor, int(v + divisor / 2) // divisor * divisor)


class StageCfg:
    def __init__(self, expand, stride, cin, cout, layers, width_mult=1.0, depth_mult=1.0):
        self.expand = expand
        self.stride = stride
        self.cin = round_to(cin * width_mult)
        self.cout = round_to(cout * width_mult)
        self.layers = int(math.ceil(layers * depth_mult))


class MB(nn.Module):
    def __init__(self, cfg, norm_layer):
        super().__init__()
        hidden = cfg.cin * cfg.expand
        self.use_res = cfg.stride == 1 and cfg.cin == cfg.cout
        self.block = nn.Sequential(nn.Conv2d(cfg.cin, hidden, 1), norm_layer(hidden), nn.SiLU(),
                                   nn.Conv2d(hidden, hidden, 3, cfg.stride, 1, groups=hidden), norm_layer(hidden),
                                   nn.Conv2d(hidden, cfg.cout, 1), norm_layer(cfg.cout))

    def forward(self, x):
        out = self.block(x)
        if self.use_res:
            out = out + x
        return out


def settings(width_mult, depth_mult):
    c = partial(StageCfg, width_mult=width_mult, depth_mult=depth_mult)
    return [c(1, 1, 16, 16, 1), c(4, 2, 16, 24, 2), c(4, 2, 24, 40, 2)], round_to(160 * width_mult)


class Net(nn.Module):
    def __init__(self, setting, last, num_classes=10, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm2d, eps=1e-3)
        layers = [nn.Sequential(nn.Conv2d(3, setting[0].cin, 3, 2, 1), norm_layer(setting[0].cin), nn.SiLU())]
        for cnf in setting:
            stage = []
            for _ in range(cnf.layers):
                c = copy.copy(cnf)
                if stage:
                    c.cin = c.cout
                    c.stride = 1
                stage.append(MB(c, norm_layer))
            layers.append(nn.Sequential(*stage))
        layers.append(nn.Conv2d(setting[-1].cout, last, 1))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(last, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.pool(x)
        x = torch.flatten(x, 1)
        x = self.classifier(x)
        return x


def _net(width_mult, depth_mult, **kwargs):
    setting, last = settings(width_mult, depth_mult)
    return Net(setting, last, **kwargs)


def net_b0(**kwargs):
    return _net(1.0, 1.0, **kwargs)


def net_b2(**kwargs):
    return _net(1.1, 1.2, **kwargs)
