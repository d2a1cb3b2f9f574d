"""Operations on values of unknown rank (issue 28, cause 1): the block's input is unannotated, so
`self.dense(hidden_states)` is `[*hidden_states, d]` — its leading axes unknown, its last one
known — and every operation below works on the known trailing axes only."""
import torch
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor, nn


class Block(nn.Module):
    def __init__(self, d_in: int, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.dense = nn.Linear(d_in, d)
        self.norm = nn.LayerNorm(d)
        self.drop = nn.Dropout(0.1)

    def forward(self, hidden_states):
        h = self.dense(hidden_states)
        h = self.drop(h)
        res = self.norm(h + h)
        padded = F.pad(h, (1, 2))
        first, rest = h.split([2, h.shape[-1] - 2], dim=-1)
        left, right = first.chunk(2, dim=-1)
        q = h.view(*h.shape[:-1], self.heads, -1)
        k = q.transpose(-1, -2)
        scores = torch.matmul(q, k)
        probs = scores.softmax(dim=-1)
        ctx = probs @ q
        merged = ctx.flatten(-2)
        both = torch.cat([h, res], dim=-1)
        stacked = torch.stack([h, res], dim=-1)
        unit = F.normalize(h, dim=-1)
        return merged, both, stacked, unit, padded, left, right, first, rest


def typed(x: Float[Tensor, "*batch 6 4"], y: Float[Tensor, "*batch 4 5"]):
    """Declared segments: `*batch` is the same axes in both."""
    prod = x @ y
    summed = prod + prod
    swapped = prod.transpose(-1, -2)
    halves = prod.chunk(5, dim=-1)[0]
    joined = torch.cat([prod, summed], dim=-2)
    return swapped, halves, joined
