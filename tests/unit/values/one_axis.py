"""A table one of whose entries keeps the shape of a tensor of at least one axis only: its
one-element parameter broadcasts a scalar into a 1-axis tensor (tests/unit/test_table_entries.py)."""
from collections import OrderedDict

import torch
from torch import nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.alpha * x


class Instantiating(OrderedDict):
    def __getitem__(self, key):
        return super().__getitem__(key)()


# more entries than a choice calls one by one (choices.MAX_OPTIONS): only the probe can follow them
ACTS = Instantiating({"scaled": Scaled, "tanh": nn.Tanh, "prelu": nn.PReLU, "relu": nn.ReLU, "sigmoid": nn.Sigmoid,
                      "silu": nn.SiLU, "gelu": nn.GELU, "elu": nn.ELU, "hardtanh": nn.Hardtanh,
                      "softplus": nn.Softplus})


def tokens(x: torch.Tensor, kind: str):
    assert x.dim() == 3
    y = ACTS[kind](x)
    return y


def anything(x: torch.Tensor, kind: str):
    y = ACTS[kind](x)  # x may be a scalar: Scaled makes it [1]
    return y


def lifted(x: torch.Tensor, kind: str):
    z = x.unsqueeze(0)
    y = ACTS[kind](z)
    return y
