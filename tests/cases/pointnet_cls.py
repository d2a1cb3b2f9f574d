"""PointNet classifier: per-point shared MLP as Conv1d over [B, 3, N], an input transform
(T-Net) applied with bmm, symmetric max pooling over the points."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: PointNet(); inputs: points=[B,N,3]
# verify: B=2,N=100; B=4,N=7; B=2,N=1


class TNet(nn.Module):
    def __init__(self, k=3):
        super().__init__()
        self.k = k
        self.conv1 = nn.Conv1d(k, 64, 1)
        self.conv2 = nn.Conv1d(64, 256, 1)
        self.fc = nn.Linear(256, k * k)

    def forward(self, x):
        B, _, N = x.shape
        h = F.relu(self.conv1(x))  # expect: [B, 64, N]
        h = F.relu(self.conv2(h))  # expect: [B, 256, N]
        g = torch.max(h, 2)[0]  # expect: [B, 256]
        m = self.fc(g).view(-1, self.k, self.k)  # expect: [B, 3, 3]
        eye = torch.eye(self.k).unsqueeze(0)  # expect: [1, 3, 3]
        return m + eye


class PointNet(nn.Module):
    def __init__(self, num_classes=40):
        super().__init__()
        self.tnet = TNet(3)
        self.mlp1 = nn.Conv1d(3, 64, 1)
        self.mlp2 = nn.Conv1d(64, 128, 1)
        self.mlp3 = nn.Conv1d(128, 1024, 1)
        self.bn3 = nn.BatchNorm1d(1024)
        self.head = nn.Sequential(nn.Linear(1024, 256), nn.ReLU(), nn.Linear(256, num_classes))

    def forward(self, points: Float[Tensor, "B N 3"]):
        x = points.transpose(2, 1)  # expect: [B, 3, N]
        trans = self.tnet(x)  # expect: [B, 3, 3]
        aligned = torch.bmm(points, trans)  # expect: [B, N, 3]
        x = aligned.transpose(2, 1)  # expect: [B, 3, N]
        f1 = F.relu(self.mlp1(x))  # expect: [B, 64, N]
        f2 = F.relu(self.mlp2(f1))  # expect: [B, 128, N]
        f3 = self.bn3(self.mlp3(f2))  # expect: [B, 1024, N]
        glob, crit_idx = torch.max(f3, dim=2)  # expect: glob=[B, 1024]; crit_idx=[B, 1024]
        logits = self.head(glob)  # expect: [B, 40]
        seg_in = torch.cat([f1, glob.unsqueeze(-1).expand(-1, -1, f1.size(2))], dim=1)  # expect: [B, 1088, N]
        reg = trans @ trans.transpose(1, 2) - torch.eye(3)  # expect: [B, 3, 3]
        ortho = torch.linalg.matrix_norm(reg).mean()  # expect: []
        return logits, seg_in, ortho
