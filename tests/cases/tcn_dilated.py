"""Temporal convolutional network: causal dilated Conv1d with left padding trimmed (Chomp)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TemporalBlock(nn.Module):
    def __init__(self, n_in, n_out, kernel_size, dilation):
        super().__init__()
        self.pad = (kernel_size - 1) * dilation
        self.conv1 = nn.Conv1d(n_in, n_out, kernel_size, padding=self.pad, dilation=dilation)
        self.conv2 = nn.Conv1d(n_out, n_out, kernel_size, padding=self.pad, dilation=dilation)
        self.residual = nn.Conv1d(n_in, n_out, 1)

    def forward(self, x):
        B, _, L = x.shape
        h = self.conv1(x)  # expect: [B, n_out, L + (kernel_size - 1)*dilation]
        h = F.relu(h[:, :, :L])  # expect: [B, n_out, L]
        h = self.conv2(h)  # expect: [B, n_out, L + (kernel_size - 1)*dilation]
        h = F.relu(h[:, :, :L])  # expect: [B, n_out, L]
        res = self.residual(x)  # expect: [B, n_out, L]
        out = F.relu(h + res)  # expect: [B, n_out, L]
        return out


class TCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.b1 = TemporalBlock(8, 32, kernel_size=3, dilation=1)
        self.b2 = TemporalBlock(32, 32, kernel_size=3, dilation=2)
        self.b3 = TemporalBlock(32, 64, kernel_size=3, dilation=4)
        self.head = nn.Linear(64, 4)

    def forward(self, x):
        B, C, L = x.shape
        h1 = self.b1(x)  # expect: [B, 32, L]
        h2 = self.b2(h1)  # expect: [B, 32, L]
        h3 = self.b3(h2)  # expect: [B, 64, L]
        last = h3[:, :, -1]  # expect: [B, 64]
        y = self.head(last)  # expect: [B, 4]
        return y


tcn = TCN()
signal = torch.randn(5, 8, 100)  # expect: [5, 8, 100]
pred = tcn(signal)  # expect: [5, 4]
same = F.conv1d(signal, torch.randn(16, 8, 5), padding="same")  # expect: [5, 16, 100]
valid = F.conv1d(signal, torch.randn(16, 8, 5), stride=3)  # expect: [5, 16, 32]
