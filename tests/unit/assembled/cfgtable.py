import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, features, num_classes=10):
        super().__init__()
        self.features = features
        self.pool = nn.AdaptiveAvgPool2d((3, 3))
        self.fc = nn.Linear(24 * 3 * 3, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.pool(x)
        x = torch.flatten(x, 1)
        x = self.fc(x)
        return x


def build(cfg):
    layers = []
    cin = 3
    for v in cfg:
        if v == "P":
            layers += [nn.MaxPool2d(2, 2)]
        else:
            layers += [nn.Conv2d(cin, v, kernel_size=3, padding=1)]
            cin = v
    return nn.Sequential(*layers)


TABLE = {"s": [12, "P", 24], "t": [12, 24, "P", "P"]}


def _net(key):
    return Net(build(TABLE[key]))


def net_s():
    return _net("s")


def net_t():
    return _net("t")


def stack(cfg, x: torch.Tensor):
    layers = []
    for v in cfg:
        layers += [nn.Conv2d(3, v, 3), nn.ReLU()]
    y = nn.Sequential(*layers)(x)
    return y


def acts(cfg, x: torch.Tensor):
    layers = []
    for v in cfg:
        layers += [nn.ReLU()]
    assert x.dim() == 2
    y = nn.Sequential(*layers)(x)
    return y


def alias(x: torch.Tensor):
    layers = []
    head = layers
    layers += [nn.Conv2d(3, 8, 3)]
    assert x.dim() == 4
    y = nn.Sequential(*head)(x)
    return y


def _settings(arch, **kwargs):
    if arch.startswith("wide_"):
        cfg = [16, 24]
    elif arch.endswith("_small"):
        cfg = [8, "P", 24]
    else:
        raise ValueError(f"unsupported {arch}")
    return cfg, arch.replace("_", "-").upper()


def net_named():
    cfg, label = _settings("net_small")
    return Net(build(cfg))
