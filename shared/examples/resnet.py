"""ResNet-18/50 for CIFAR-sized images: BasicBlock and Bottleneck, _make_layer with a 1x1
projection shortcut whenever the stride or the width changes."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.tensor_type import TensorType


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Conv2d(in_planes, planes, kernel_size=1, stride=stride, bias=False)

    def forward(self, x):
        B, _, H, W = x.shape
        out = F.relu(self.bn1(self.conv1(x)))  # expect: [B, planes, H, W]
        out = self.bn2(self.conv2(out))  # expect: [B, planes, H, W]
        out = F.relu(out + self.shortcut(x))  # expect: [B, planes, H, W]
        return out


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, self.expansion * planes, kernel_size=1, bias=False)
        self.bn3 = nn.BatchNorm2d(self.expansion * planes)
        self.shortcut = nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride, bias=False)

    def forward(self, x):
        B, _, H, W = x.shape
        out = F.relu(self.bn1(self.conv1(x)))  # expect: [B, planes, H, W]
        out = F.relu(self.bn2(self.conv2(out)))  # expect: [B, planes, H, W]
        out = self.bn3(self.conv3(out))  # expect: [B, 4*planes, H, W]
        out = F.relu(out + self.shortcut(x))  # expect: [B, 4*planes, H, W]
        return out


class ResNet(nn.Module):
    def __init__(self, block=BasicBlock, num_blocks=(2, 2, 2, 2), num_classes=10):
        super().__init__()
        self.in_planes = 64
        self.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.layer1 = self._make_layer(block, 64, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, 128, num_blocks[1], stride=2)
        self.layer3 = self._make_layer(block, 256, num_blocks[2], stride=2)
        self.layer4 = self._make_layer(block, 512, num_blocks[3], stride=2)
        self.linear = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, num_blocks, stride):
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for s in strides:
            layers.append(block(self.in_planes, planes, s))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x: TensorType((4, 3, 32, 32))):
        out = F.relu(self.bn1(self.conv1(x)))  # expect: [4, 64, 32, 32]
        out = self.layer1(out)  # expect: [4, 64, 32, 32]
        out = self.layer2(out)  # expect: [4, 128, 16, 16]
        out = self.layer3(out)  # expect: [4, 256, 8, 8]
        out = self.layer4(out)  # expect: [4, 512, 4, 4]
        out = F.avg_pool2d(out, 4)  # expect: [4, 512, 1, 1]
        out = out.view(out.size(0), -1)  # expect: [4, 512]
        out = self.linear(out)  # expect: [4, 10]
        return out


net = ResNet()
images = torch.randn(4, 3, 32, 32)  # expect: [4, 3, 32, 32]
logits = net(images)  # expect: [4, 10]
loss = F.cross_entropy(logits, torch.tensor([1, 0, 4, 9]))  # expect: []
bottleneck = Bottleneck(256, 64)
fmap = torch.randn(2, 256, 8, 8)  # expect: [2, 256, 8, 8]
refined = bottleneck(fmap)  # expect: [2, 256, 8, 8]
