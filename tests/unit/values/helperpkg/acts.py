"""A package module whose top-level code builds a table and then reads it through its own helper
(tests/unit/test_table_entries.py)."""
import os
from collections import OrderedDict

import torch
from torch import nn


class Erf(nn.Module):
    def forward(self, x):
        return torch.erf(x) * x


class ClippedErf(nn.Module):
    """Reads the module-level `erf` when it runs."""

    def forward(self, x):
        return torch.clip(erf(x), -1.0, 1.0)


class Instantiating(OrderedDict):
    def __getitem__(self, key):
        content = super().__getitem__(key)
        cls, kwargs = content if isinstance(content, tuple) else (content, {})
        return cls(**kwargs)


TABLE = Instantiating({"erf": Erf, "relu": nn.ReLU, "slope": (nn.PReLU, {"init": 0.1}),
                       "clipped": ClippedErf})


def get_activation(name):
    if name in TABLE:
        return TABLE[name]
    raise KeyError(name)


erf = get_activation("erf")  # the module's own helper, given a constant
chosen = get_activation(os.environ.get("SHAPEHINT_TEST_ACT", "relu"))  # an argument not a constant

