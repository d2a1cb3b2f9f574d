"""Tables of callables (issue 28, cause 5): a mapping subclass built from a dict of classes and
`(class, kwargs)` pairs, whose `__getitem__` instantiates the entry, read with a key only the
configuration knows. Every entry of ACTIVATIONS keeps the shape; one entry of MIXED does not."""
import math
from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: bool = False):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        if self.approximate:
            return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
        return F.gelu(x)


class Clipped(nn.Module):
    def __init__(self, low: float, high: float):
        super().__init__()
        self.low, self.high = low, high

    def forward(self, x):
        return torch.clip(F.gelu(x), self.low, self.high)


class Identity(nn.Module):
    def forward(self, x):
        return x


class Squared(nn.Module):
    def forward(self, x):
        return torch.square(F.relu(x))


class LastAxisMean(nn.Module):
    def forward(self, x):
        return x.mean(-1)


class Instantiating(OrderedDict):
    def __getitem__(self, key):
        entry = super().__getitem__(key)
        cls, kwargs = entry if isinstance(entry, tuple) else (entry, {})
        return cls(**kwargs)


ENTRIES = {
    "gelu": GELU,
    "gelu_tanh": (GELU, {"approximate": True}),
    "gelu_10": (Clipped, {"low": -10, "high": 10}),
    "linear": Identity,
    "relu": nn.ReLU,
    "relu2": Squared,
    "relu6": nn.ReLU6,
    "sigmoid": nn.Sigmoid,
    "silu": nn.SiLU,
    "tanh": nn.Tanh,
    "leaky_relu": nn.LeakyReLU,
    "mish": nn.Mish,
}
ACTIVATIONS = Instantiating(ENTRIES)
MIXED = Instantiating({**ENTRIES, "mean": LastAxisMean})


class MLP(nn.Module):
    def __init__(self, d, h, act, mixed):
        super().__init__()
        self.up = nn.Linear(d, h)
        self.act = ACTIVATIONS[act]
        self.act2 = ACTIVATIONS[act]  # the same table again: its entries are not read again
        self.other = MIXED[mixed]
        self.clipped = ACTIVATIONS["gelu_10"]  # a key known: that entry
        self.down = nn.Linear(h, d)

    def forward(self, x):
        h = self.up(x)
        a = self.act(h)
        b = self.act2(a)
        c = self.clipped(b)
        m = self.other(c)
        y = self.down(c)
        return h, a, b, c, m, y


def entry(x: torch.Tensor, act: str, mixed: str):
    assert x.dim() == 3
    model = MLP(x.shape[-1], 32, act, mixed)
    return model(x)
