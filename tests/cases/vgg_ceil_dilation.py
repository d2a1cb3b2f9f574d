"""VGG-style feature extractor with ceil_mode pooling and a dilated tail (DeepLab-v1 flavour)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.tensor_type import TensorType


def conv_bn_relu(cin, cout, dilation=1):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class VGGDilated(nn.Module):
    def __init__(self, num_classes=21):
        super().__init__()
        self.stage1 = nn.Sequential(conv_bn_relu(3, 64), conv_bn_relu(64, 64))
        self.stage2 = nn.Sequential(conv_bn_relu(64, 128), conv_bn_relu(128, 128))
        self.stage3 = nn.Sequential(conv_bn_relu(128, 256), conv_bn_relu(256, 256))
        self.pool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1, ceil_mode=True)
        self.atrous = conv_bn_relu(256, 512, dilation=4)
        self.fc6 = nn.Conv2d(512, 1024, kernel_size=3, padding=12, dilation=12)
        self.fc7 = nn.Conv2d(1024, 1024, kernel_size=1)
        self.classifier = nn.Conv2d(1024, num_classes, kernel_size=1)

    def forward(self, x: TensorType((2, 3, 75, 75))):
        x1 = self.stage1(x)  # expect: [2, 64, 75, 75]
        p1 = self.pool(x1)  # expect: [2, 64, 38, 38]
        x2 = self.stage2(p1)  # expect: [2, 128, 38, 38]
        p2 = self.pool(x2)  # expect: [2, 128, 20, 20]
        x3 = self.stage3(p2)  # expect: [2, 256, 20, 20]
        p3 = F.max_pool2d(x3, kernel_size=3, stride=1, padding=1)  # expect: [2, 256, 20, 20]
        x4 = self.atrous(p3)  # expect: [2, 512, 20, 20]
        f6 = F.relu(self.fc6(x4))  # expect: [2, 1024, 20, 20]
        f6 = F.dropout(f6, p=0.5, training=self.training)  # expect: [2, 1024, 20, 20]
        f7 = F.relu(self.fc7(f6))  # expect: [2, 1024, 20, 20]
        scores = self.classifier(f7)  # expect: [2, 21, 20, 20]
        up = F.interpolate(scores, size=(75, 75), mode="bilinear", align_corners=False)  # expect: [2, 21, 75, 75]
        return up


net = VGGDilated()
img = torch.randn(2, 3, 75, 75)  # expect: [2, 3, 75, 75]
seg = net(img)  # expect: [2, 21, 75, 75]
target = torch.randint(0, 21, (2, 75, 75))  # expect: [2, 75, 75]
loss = F.cross_entropy(seg, target)  # expect: []
per_pixel = F.cross_entropy(seg, target, reduction="none")  # expect: [2, 75, 75]
labels = seg.argmax(1)  # expect: [2, 75, 75]
