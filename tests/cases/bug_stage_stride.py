"""A four-stage CNN for 32x32 inputs whose third stage was given stride 1 instead of 2: the final
map is 8x8 rather than 4x4 and the classifier's in_features (256*4*4) no longer match."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: FourStageCNN(); inputs: x=[B,3,32,32]
# verify: B=2; B=6


def stage(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class FourStageCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.s1 = stage(3, 32, 1)
        self.s2 = stage(32, 64, 2)
        self.s3 = stage(64, 128, 1)
        self.s4 = stage(128, 256, 2)
        self.classifier = nn.Linear(256 * 4 * 4, num_classes)

    def forward(self, x: Float[Tensor, "B 3 32 32"]):
        f1 = self.s1(x)  # expect: [B, 32, 32, 32]
        f2 = self.s2(f1)  # expect: [B, 64, 16, 16]
        f3 = self.s3(f2)  # expect: [B, 128, 16, 16]
        f4 = self.s4(f3)  # expect: [B, 256, 8, 8]
        pooled = F.adaptive_avg_pool2d(f4, 4)  # expect: [B, 256, 4, 4]
        good = self.classifier(pooled.flatten(1))  # expect: [B, 10]
        aux = f3.mean(dim=(2, 3))  # expect: [B, 128]
        flat = f4.reshape(f4.size(0), -1)  # expect: [B, 16384]
        logits = self.classifier(flat)  # E[SH101]
        return logits, good, aux
