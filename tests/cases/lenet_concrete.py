"""LeNet-5 on MNIST-sized input: conv/pool/flatten/Linear with a concrete TensorType input."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.tensor_type import TensorType


class LeNet5(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5, padding=2)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x: TensorType((8, 1, 28, 28))):
        c1 = F.relu(self.conv1(x))  # expect: [8, 6, 28, 28]
        s2 = self.pool(c1)  # expect: [8, 6, 14, 14]
        c3 = F.relu(self.conv2(s2))  # expect: [8, 16, 10, 10]
        s4 = self.pool(c3)  # expect: [8, 16, 5, 5]
        flat = torch.flatten(s4, 1)  # expect: [8, 400]
        f5 = F.relu(self.fc1(flat))  # expect: [8, 120]
        f6 = F.relu(self.fc2(f5))  # expect: [8, 84]
        logits = self.fc3(f6)  # expect: [8, 10]
        return logits


model = LeNet5()
images = torch.randn(8, 1, 28, 28)  # expect: [8, 1, 28, 28]
labels = torch.randint(0, 10, (8,))  # expect: [8]
out = model(images)  # expect: [8, 10]
loss = F.cross_entropy(out, labels)  # expect: []
probs = out.softmax(dim=-1)  # expect: [8, 10]
pred = probs.argmax(dim=1)  # expect: [8]
correct = (pred == labels).float()  # expect: [8]
accuracy = correct.mean()  # expect: []
top3 = probs.topk(3, dim=1).indices  # expect: [8, 3]
