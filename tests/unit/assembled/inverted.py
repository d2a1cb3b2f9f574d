from functools import partial
import torch
from torch import nn


class ConvBN(nn.Sequential):
    def __init__(self, cin, cout, k=3, stride=1, norm_layer=nn.BatchNorm2d, act=nn.ReLU):
        layers = [nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, bias=False)]
        if norm_layer is not None:
            layers.append(norm_layer(cout))
        if act is not None:
            layers.append(act(inplace=True))
        super().__init__(*layers)
        self.out_channels = cout


class Inv(nn.Module):
    def __init__(self, cin, cout, stride, expand, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        layers = []
        if expand != 1:
            layers.append(ConvBN(cin, hidden, k=1, norm_layer=norm_layer))
        layers.extend([ConvBN(hidden, hidden, stride=stride, norm_layer=norm_layer),
                       nn.Conv2d(hidden, cout, 1, 1, 0, bias=False), norm_layer(cout)])
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res:
            return x + self.conv(x)
        return self.conv(x)


class Net(nn.Module):
    def __init__(self, num_classes=10, setting=None, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm2d, eps=0.001)
        if setting is None:
            setting = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 2, 2]]
        cin = 8
        features = [ConvBN(3, cin, stride=2, norm_layer=norm_layer)]
        for t, c, n, s in setting:
            for i in range(n):
                stride = s if i == 0 else 1
                features.append(Inv(cin, c, stride, t, norm_layer=norm_layer))
                cin = c
        features.append(ConvBN(cin, 64, k=1, norm_layer=norm_layer))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(64, num_classes))

    def forward(self, x):
        y = self.features[0](x)
        x = self.features(x)
        x = nn.functional.adaptive_avg_pool2d(x, (1, 1))
        x = torch.flatten(x, 1)
        x = self.classifier(x)
        return x
