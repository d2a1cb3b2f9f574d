from typing import cast, Union
import torch
from torch import nn

CFG: dict[str, list[Union[str, int]]] = {"a": [8, "M", 16, "M"]}


def make(cfg, bn=False):
    layers = []
    cin = 3
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            v = cast(int, v)
            conv = nn.Conv2d(cin, v, kernel_size=3, padding=1)
            if bn:
                layers += [conv, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            else:
                layers += [conv, nn.ReLU(inplace=True)]
            cin = v
    return nn.Sequential(*layers)


class Net(nn.Module):
    def __init__(self, features, num_classes=10):
        super().__init__()
        self.features = features
        self.pool = nn.AdaptiveAvgPool2d((2, 2))
        self.fc = nn.Linear(16 * 2 * 2, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.pool(x)
        x = torch.flatten(x, 1)
        x = self.fc(x)
        return x


def net_a(**kwargs):
    return Net(make(CFG["a"]), **kwargs)


def net_a_direct():
    return Net(make([8, "M", 16, "M"]))
