"""Ordinary typing hints that do not match what is passed (issue 28, cause 3): GPT-2's blocks
annotate a tensor as `Optional[tuple[torch.FloatTensor]]`; the body and its callers treat it
as a tensor."""
from typing import Optional

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.proj = nn.Linear(4 * d, d)

    def forward(self, hidden_states: Optional[tuple[torch.FloatTensor]]) -> torch.FloatTensor:
        residual = hidden_states
        h = self.ln(hidden_states)
        h = self.proj(self.fc(h))
        out = residual + h
        return out


def first_of(states: tuple[torch.Tensor], w: torch.Tensor):
    # really a tuple: the body indexes it, so the hint keeps its meaning
    s = states[0]
    return s


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = MLP(8)

    def forward(self, x: torch.Tensor):
        assert x.dim() == 3
        y = self.mlp(x)
        return y
