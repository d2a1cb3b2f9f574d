"""Subclasses of nn.Sequential without a forward of their own (torchvision's
Conv2dNormActivation, timm's LeViT stems): layers given to `super().__init__`, as an
OrderedDict, or registered with `add_module` / attribute assignment run in that order."""
from collections import OrderedDict

import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor

# entry: Net(); inputs: x=[B,3,H,W]
# verify: B=2,H=32,W=32; B=1,H=20,W=28


class ConvNormAct(nn.Sequential):
    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class Stem(nn.Sequential):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.add_module("conv1", ConvNormAct(cin, cout // 2, 2))
        self.conv2 = ConvNormAct(cout // 2, cout, 2)


class Head(nn.Sequential):
    def __init__(self, features: int, classes: int):
        super().__init__(OrderedDict([("pool", nn.AdaptiveAvgPool2d(1)), ("flat", nn.Flatten()),
                                      ("fc", nn.Linear(features, classes))]))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = Stem(3, 32)
        self.body = ConvNormAct(32, 64, 2)
        self.head = Head(64, 10)

    def forward(self, x: Float[Tensor, "B 3 H W"]):
        s = self.stem(x)  # expect: [B, 32, ((H - 1)//2 + 1 - 1)//2 + 1, ((W - 1)//2 + 1 - 1)//2 + 1]
        h = self.body(s)  # expect: [B, 64, (((H - 1)//2 + 1 - 1)//2 + 1 - 1)//2 + 1, (((W - 1)//2 + 1 - 1)//2 + 1 - 1)//2 + 1]
        g = h.mean(dim=(2, 3))  # expect: [B, 64]
        logits = self.head(h)  # expect: [B, 10]
        probs = logits.softmax(-1)  # expect: [B, 10]
        top = probs.argmax(-1)  # expect: [B]
        gate = torch.sigmoid(g)[:, :, None, None]  # expect: [B, 64, 1, 1]
        scaled = h * gate  # expect: [B, 64, (((H - 1)//2 + 1 - 1)//2 + 1 - 1)//2 + 1, (((W - 1)//2 + 1 - 1)//2 + 1 - 1)//2 + 1]
        return logits, top, scaled
