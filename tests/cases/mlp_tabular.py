"""A tabular MLP with batch norm, dropout and two heads; concrete batch at module level."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TabularMLP(nn.Module):
    def __init__(self, n_features=20, hidden=64, n_classes=3):
        super().__init__()
        self.fc1 = nn.Linear(n_features, hidden)
        self.bn1 = nn.BatchNorm1d(hidden)
        self.fc2 = nn.Linear(hidden, hidden * 2)
        self.bn2 = nn.BatchNorm1d(hidden * 2)
        self.cls_head = nn.Linear(hidden * 2, n_classes)
        self.reg_head = nn.Linear(hidden * 2, 1)

    def forward(self, x):
        B, F_in = x.shape
        h = F.relu(self.bn1(self.fc1(x)))  # expect: [B, 64]
        h = F.dropout(h, 0.2, self.training)  # expect: [B, 64]
        h2 = F.relu(self.bn2(self.fc2(h)))  # expect: [B, 128]
        logits = self.cls_head(h2)  # expect: [B, 3]
        value = self.reg_head(h2).squeeze(-1)  # expect: [B]
        return logits, value


model = TabularMLP()
features = torch.randn(32, 20)  # expect: [32, 20]
y_cls = torch.randint(0, 3, (32,))  # expect: [32]
y_reg = torch.randn(32)  # expect: [32]
logits, value = model(features)  # expect: logits=[32, 3]; value=[32]
ce = F.cross_entropy(logits, y_cls)  # expect: []
mse = F.mse_loss(value, y_reg)  # expect: []
loss = ce + 0.5 * mse  # expect: []
log_probs = F.log_softmax(logits, dim=1)  # expect: [32, 3]
nll = -log_probs.gather(1, y_cls.unsqueeze(1))  # expect: [32, 1]
weights = torch.ones(32, 1) / 32  # expect: [32, 1]
weighted = (nll * weights).sum()  # expect: []
# normalise features with per-column statistics
mean = features.mean(dim=0, keepdim=True)  # expect: [1, 20]
std = features.std(dim=0, keepdim=True)  # expect: [1, 20]
normed = (features - mean) / (std + 1e-5)  # expect: [32, 20]
