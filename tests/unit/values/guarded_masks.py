"""A padding mask the callers may omit, tested with more than `is not None` (issue 28, cause 8):
the mask made for the omitted one keeps its shape, and so does what it is added to."""
from typing import Optional

import torch
from torch import nn


def prepare(x, mask):
    # a mask given ready (4-D) is handed back as it is, with no length: the early return
    if isinstance(mask, torch.Tensor) and len(mask.shape) == 4:
        return True, mask, None
    return False, mask, x.shape[1]


def causal(x, mask):
    ready, mask, length = prepare(x, mask)
    if ready:
        return mask
    out = torch.zeros(x.shape[0], 1, x.shape[1], length)
    if mask is not None:
        out = out + mask[:, None, None, :]
    return out


class Inner(nn.Module):
    def __init__(self, vocab, dim, heads):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.heads = heads

    def forward(self, ids: Optional[torch.LongTensor] = None, attention_mask: Optional[torch.FloatTensor] = None):
        h = self.emb(ids)
        if attention_mask is not None and attention_mask.ndim < 4:
            attention_mask = attention_mask.view(h.shape[0], -1)
        m = causal(h, attention_mask)
        w = torch.ones(h.shape[0], self.heads, h.shape[1], h.shape[1])
        w = w + m
        return w


class Outer(nn.Module):
    def __init__(self, vocab=11, dim=8, heads=2):
        super().__init__()
        self.inner = Inner(vocab, dim, heads)

    def forward(self, ids: Optional[torch.LongTensor] = None, attention_mask: Optional[torch.FloatTensor] = None):
        assert ids.shape == (2, 5)
        w = self.inner(ids, attention_mask=attention_mask)
        return w


def either(x: torch.Tensor, mask: Optional[torch.Tensor] = None):
    assert x.shape == (3, 4)
    # `or`: the body runs when the mask is omitted, or given but not 2-D
    if mask is None or mask.ndim != 2:
        y = x * 2
    else:
        y = x[:, :1] + mask
    z = y * 1
    return z


def tuple_class(x: torch.Tensor, mask: Optional[torch.Tensor] = None):
    assert x.shape == (3, 4)
    # a class list that may hold None's type: not a test of whether the mask is given
    if isinstance(mask, (torch.Tensor, type(None))) and x.ndim == 2:
        y = x + 1
    else:
        y = x.sum(0)
    z = y * 1
    return z
