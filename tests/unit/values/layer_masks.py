"""Each layer gets its slice of an optional mask (`mask[i] if mask is not None else None`)."""
from typing import Optional

import torch
from torch import nn


def attend(query, key, value, head_mask=None):
    weights = torch.matmul(query, key.transpose(2, 3))
    weights = nn.functional.softmax(weights, dim=-1)
    if head_mask is not None:
        weights = weights * head_mask.view(1, -1, 1, 1)
    weights = nn.functional.dropout(weights, p=0.0)
    out = torch.matmul(weights, value)
    return out, weights


class Stack(nn.Module):
    def __init__(self, heads, head_dim, depth):
        super().__init__()
        self.head_dim = head_dim
        self.layers = nn.ModuleList([nn.Linear(heads * head_dim, heads * head_dim) for _ in range(depth)])

    def forward(self, x: torch.Tensor, head_mask: Optional[torch.Tensor] = None):
        b, t, d = x.shape
        for i, layer in enumerate(self.layers):
            q = layer(x).view(b, t, -1, self.head_dim).transpose(1, 2)
            out, weights = attend(q, q, q, head_mask=head_mask[i] if head_mask is not None else None)
            x = out.transpose(1, 2).reshape(b, t, d)
        return x, weights


def masked(x: torch.Tensor, mask: Optional[torch.Tensor] = None):
    kept = mask.sum() if mask is not None else x
    return kept
