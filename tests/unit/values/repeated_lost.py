"""A list of Nones repeated a count the analysis lost (`[None] * config.num_layers` where a
library base set the config), returned by a helper annotated `-> torch.Tensor`: the body's known
result overrules the hint, so the per-layer head mask is None and every layer keeps the input's
shape, as the optional mask's omitted side does in the caller."""
import json
from typing import Optional

import torch
from torch import nn


def per_layer(head_mask, count) -> torch.Tensor:
    if head_mask is not None:
        head_mask = head_mask.unsqueeze(0).expand(count, -1)
    else:
        head_mask = [None] * count
    return head_mask


class Layer(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.proj = nn.Linear(d, d)

    def forward(self, x, head_mask=None):
        w = self.proj(x).softmax(-1)
        if head_mask is not None:
            w = w * head_mask
        y = self.proj(w)
        return y


class Stack(nn.Module):
    def __init__(self, d: int, settings: str):
        super().__init__()
        self.settings = settings
        self.layers = nn.ModuleList([Layer(d) for _ in range(2)])

    def forward(self, x: torch.Tensor, head_mask: Optional[torch.Tensor] = None):
        masks = per_layer(head_mask, json.loads(self.settings)["layers"])
        for i, layer in enumerate(self.layers):
            x = layer(x, masks[i])
        out = x
        return out


def run(shape, d):
    return Stack(d, json.dumps({"layers": 2}))(torch.randn(*shape, d))
