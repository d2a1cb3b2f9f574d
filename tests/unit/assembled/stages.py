import torch
import torch.nn as nn


class Block(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.conv2(out)
        if self.downsample is not None:
            identity = self.downsample(x)
        out = out + identity
        return out


class Net(nn.Module):
    def __init__(self, block, layers, num_classes=10):
        super().__init__()
        self.inplanes = 16
        self.stem = nn.Conv2d(3, 16, 3, 1, 1)
        self.layer1 = self._stage(block, 16, layers[0])
        self.layer2 = self._stage(block, 32, layers[1], stride=2)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(32 * block.expansion, num_classes)

    def _stage(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes * block.expansion, 1, stride))
        layers = []
        layers.append(block(self.inplanes, planes, stride, downsample))
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.stem(x)
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.pool(x)
        x = torch.flatten(x, 1)
        x = self.fc(x)
        return x


def _net(block, layers, **kwargs):
    model = Net(block, layers, **kwargs)
    return model


def net_small(**kwargs):
    return _net(Block, [2, 2], **kwargs)


class Wide(nn.Module):
    expansion = 2

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv = nn.Conv2d(inplanes, planes * 2, 3, stride, 1)
        self.downsample = downsample

    def forward(self, x):
        out = self.conv(x)
        if self.downsample is not None:
            x = self.downsample(x)
        return out + x


def net_wide(**kwargs):
    return _net(Wide, [1, 1], **kwargs)


class Halving(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 1)
        self.down = nn.Sequential(*[nn.Conv2d(8, 8, 3, 2, 1) for _ in range(depth)])

    def forward(self, x):
        h = self.stem(x)
        h = self.down(h)
        return h


def halving(depth):
    return Halving(depth)
