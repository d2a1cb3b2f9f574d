"""AlexNet-style classifier for 64x64 images whose first fully connected layer was sized for a
different input: the flattened features have 256*3*3 = 2304 values, fc6 expects 256*6*6."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.tensor_type import TensorType

# entry: MiniAlexNet(); inputs: x=[4,3,64,64]


class MiniAlexNet(nn.Module):
    def __init__(self, num_classes=200):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2)
        self.conv2 = nn.Conv2d(64, 192, kernel_size=5, padding=2)
        self.conv3 = nn.Conv2d(192, 384, kernel_size=3, padding=1)
        self.conv4 = nn.Conv2d(384, 256, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(kernel_size=3, stride=2)
        self.fc6 = nn.Linear(256 * 6 * 6, 1024)
        self.fc7 = nn.Linear(1024, 1024)
        self.fc8 = nn.Linear(1024, num_classes)

    def forward(self, x: TensorType((4, 3, 64, 64))):
        c1 = F.relu(self.conv1(x))  # expect: [4, 64, 15, 15]
        p1 = self.pool(c1)  # expect: [4, 64, 7, 7]
        c2 = F.relu(self.conv2(p1))  # expect: [4, 192, 7, 7]
        p2 = self.pool(c2)  # expect: [4, 192, 3, 3]
        c3 = F.relu(self.conv3(p2))  # expect: [4, 384, 3, 3]
        c4 = F.relu(self.conv4(c3))  # expect: [4, 256, 3, 3]
        flat = torch.flatten(c4, 1)  # expect: [4, 2304]
        flat = F.dropout(flat, 0.5, self.training)  # expect: [4, 2304]
        h6 = F.relu(self.fc6(flat))  # E[SH101]
        h7 = F.relu(self.fc7(h6))
        return self.fc8(h7)
