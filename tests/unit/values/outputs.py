"""Output objects (issue 28, cause 2): dataclasses over an ordered dict whose items are their
fields that are not None, read by attribute, key, position, slice and a `to_tuple()`."""
from collections import OrderedDict
from dataclasses import dataclass, fields
from typing import Optional

import torch
from torch import nn


class Record(OrderedDict):
    def __init__(self, *args, **kwargs):
        # a base whose own __init__ only passes on: @dataclass writes the subclasses' __init__
        super().__init__(*args, **kwargs)

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if v is not None:
                self[f.name] = v

    def __getitem__(self, k):
        if isinstance(k, str):
            return dict(self.items())[k]
        return self.to_tuple()[k]

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


@dataclass
class EncoderOutput(Record):
    last_hidden_state: Optional[torch.Tensor] = None
    pooled: Optional[torch.Tensor] = None
    attentions: Optional[tuple] = None


@dataclass
class Pair:
    first: torch.Tensor
    second: Optional[torch.Tensor] = None


class Encoder(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 2 * d)

    def forward(self, x):
        h = self.proj(x)
        return EncoderOutput(last_hidden_state=h, pooled=h.mean(1))


class Model(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.enc = Encoder(d)

    def forward(self, x, flag: bool):
        out = self.enc(x)
        by_attr = out.last_hidden_state
        by_key = out["pooled"]
        first = out[0]
        second = out[1]
        last = out[-1]
        head = out[:1][0]
        via_tuple = out.to_tuple()[1]
        keys = list(out.keys())
        positional = EncoderOutput(by_attr, by_key)
        pos_pooled = positional.pooled
        skipped = EncoderOutput(None, by_key)[0]  # a None field is no item: position 0 is `pooled`
        maybe = EncoderOutput(by_attr if flag else None, by_key)
        undecided = maybe[0]  # `last_hidden_state` or `pooled`: not known
        still_known = maybe["pooled"]
        plain = Pair(x * 2)
        plain_first = plain.first
        return (by_attr, by_key, first, second, last, head, via_tuple, pos_pooled, skipped, still_known,
                plain_first, undecided, keys)


NAMES = ["by_attr", "by_key", "first", "second", "last", "head", "via_tuple", "pos_pooled", "skipped",
         "still_known", "plain_first"]


def entry(x: torch.Tensor, flag: bool):
    assert x.dim() == 3
    model = Model(8)
    return model(x, flag)
