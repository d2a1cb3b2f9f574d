import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(6 * 14 * 14, 120)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        assert x.shape[1:] == (3, 32, 32)
        h = self.pool(F.relu(self.conv1(x)))
        h = torch.flatten(h, 1)
        h = F.relu(self.fc1(h))
        out = self.fc2(h)
        return out
