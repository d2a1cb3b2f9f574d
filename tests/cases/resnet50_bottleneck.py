"""ResNet-50: Bottleneck blocks (expansion 4), _make_layer with downsample, concrete 224x224 input."""
import torch
import torch.nn as nn
from torch.fx.tensor_type import TensorType


def conv3x3(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = conv1x1(inplanes, planes)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = conv3x3(planes, planes, stride)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = conv1x1(planes, planes * self.expansion)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        B, _, H, W = x.shape
        out = self.relu(self.bn1(self.conv1(x)))  # expect: [B, planes, H, W]
        out = self.relu(self.bn2(self.conv2(out)))  # expect: [B, planes, H, W]
        out = self.bn3(self.conv3(out))  # expect: [B, 4*planes, H, W]
        out = self.relu(out + x)  # expect: [B, 4*planes, H, W]
        return out


class DownBottleneck(Bottleneck):
    """The first block of a stage: strided, and projects the identity with a 1x1 conv."""

    def __init__(self, inplanes, planes, stride):
        downsample = nn.Sequential(
            conv1x1(inplanes, planes * Bottleneck.expansion, stride),
            nn.BatchNorm2d(planes * Bottleneck.expansion),
        )
        super().__init__(inplanes, planes, stride, downsample)

    def forward(self, x):
        B, _, H, W = x.shape
        identity = self.downsample(x)  # expect: [B, 4*planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.relu(self.bn1(self.conv1(x)))  # expect: [B, planes, H, W]
        out = self.relu(self.bn2(self.conv2(out)))  # expect: [B, planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.bn3(self.conv3(out))  # expect: [B, 4*planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.relu(out + identity)  # expect: [B, 4*planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        return out


class ResNet(nn.Module):
    def __init__(self, layers=(3, 4, 6, 3), num_classes=1000):
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(64, layers[0])
        self.layer2 = self._make_layer(128, layers[1], stride=2)
        self.layer3 = self._make_layer(256, layers[2], stride=2)
        self.layer4 = self._make_layer(512, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * Bottleneck.expansion, num_classes)

    def _make_layer(self, planes, blocks, stride=1):
        layers = [DownBottleneck(self.inplanes, planes, stride)]
        self.inplanes = planes * Bottleneck.expansion
        for _ in range(1, blocks):
            layers.append(Bottleneck(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x: TensorType((2, 3, 224, 224))):
        x = self.relu(self.bn1(self.conv1(x)))  # expect: [2, 64, 112, 112]
        x = self.maxpool(x)  # expect: [2, 64, 56, 56]
        c2 = self.layer1(x)  # expect: [2, 256, 56, 56]
        c3 = self.layer2(c2)  # expect: [2, 512, 28, 28]
        c4 = self.layer3(c3)  # expect: [2, 1024, 14, 14]
        c5 = self.layer4(c4)  # expect: [2, 2048, 7, 7]
        pooled = self.avgpool(c5)  # expect: [2, 2048, 1, 1]
        flat = torch.flatten(pooled, 1)  # expect: [2, 2048]
        logits = self.fc(flat)  # expect: [2, 1000]
        return logits


def resnet50():
    return ResNet()


model = resnet50().eval()
images = torch.randn(2, 3, 224, 224)  # expect: [2, 3, 224, 224]
with torch.no_grad():
    logits = model(images)  # expect: [2, 1000]
probs = logits.softmax(-1)  # expect: [2, 1000]
conf, cls = probs.max(dim=1)  # expect: conf=[2]; cls=[2]
