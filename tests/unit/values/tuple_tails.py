"""Tuples whose length differs between paths, read from the end
(tests/unit/test_values_tuple_tails.py): an item put in front on one path leaves the last item
the same on both."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x, in_front: bool):
        y = self.lin(x)
        out = (y,)
        if in_front:
            w = x @ x.transpose(-1, -2)
            out = (w,) + out
        return out


class AtTheEnd(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x, at_end: bool):
        y = self.lin(x)
        out = (y,)
        if at_end:
            out = out + (x @ x.transpose(-1, -2),)
        return out


def last_item(x, in_front: bool):
    b, t, d = x.shape
    block = Block(d)
    outs = block(x, in_front)
    last = outs[-1]
    return last


def grown(x, in_front: bool):
    b, t, d = x.shape
    block = Block(d)
    outs = block(x, in_front) + (x[:, 0],)
    end = outs[-1]
    return end


def before_the_end(x, in_front: bool):
    b, t, d = x.shape
    block = Block(d)
    outs = block(x, in_front) + (x[:, 0],)
    before = outs[-2]
    return before


def put_in_front(x, in_front: bool):
    b, t, d = x.shape
    block = Block(d)
    outs = (x[:, 0],) + block(x, in_front)
    last = outs[-1]
    return last


def different_ends(x, at_end: bool):
    b, t, d = x.shape
    block = AtTheEnd(d)
    outs = block(x, at_end)
    last = outs[-1]
    return last
