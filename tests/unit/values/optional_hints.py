"""Optional inputs hinted as tensors (issue 28, cause 8): `input_ids: Optional[torch.LongTensor] = None`
says a caller passes a tensor or nothing. The body uses it only through a layer and plain
arithmetic (no `.view`, no `.dim()`), so only the hint says it is a tensor."""
from typing import Optional

import torch
from torch import nn


class Embedder(nn.Module):
    def __init__(self, vocab: int, hidden: int):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.proj = nn.Linear(hidden, 2 * hidden)

    def forward(self, input_ids: Optional[torch.LongTensor] = None):
        inputs_embeds = self.embed_tokens(input_ids)
        out = self.proj(inputs_embeds)
        return out


def shifted(ids: Optional[torch.Tensor] = None, offset: int = 1):
    moved = ids + offset
    return moved


def passed_on(x: torch.Tensor, mask=None):
    y = x * 2
    return y
