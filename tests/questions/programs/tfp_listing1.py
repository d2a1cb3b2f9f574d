"""Tensors Fitting Perfectly, Listing 1, in PyTorch (NCHW): a max-pool assertion that always
fails, and a shape hole in the dense layer whose only value is 320."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 5, kernel_size=2, stride=2)
        self.dense = nn.Linear(__, 10)

    def forward(self, input):
        batch_size = input.shape[0]
        c = F.relu(self.conv(input))
        m = F.max_pool2d(c, kernel_size=2, stride=2)
        assert m.shape == (batch_size, 5, 16, 16)  # !!!!
        d_in = torch.flatten(m, 1)
        d_out = self.dense(d_in)
        assert d_out.shape == (batch_size, 10)  # optional
        return d_out


m = Model()
batch_size = 12
input = torch.zeros(12, 3, 32, 32)
output = m(input)
assert output.shape == (batch_size, 10)
