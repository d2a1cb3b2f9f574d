"""Tuples whose length differs between paths (issue 28, cause 2): an attention that adds its
weights to its outputs only when asked, with the flag unknown where the layer is analysed."""
import torch
from torch import nn

SEEN = {}


class Attention(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.o = nn.Linear(d, 2 * d)

    def forward(self, x, output_attentions=False):
        weights = torch.matmul(self.q(x), x.transpose(-1, -2)).softmax(-1)
        out = self.o(torch.matmul(weights, x))
        outputs = (out, weights)
        if output_attentions:
            outputs = outputs + (weights,)
        return outputs


class Layer(nn.Module):
    def __init__(self, d: int, flag):
        super().__init__()
        self.attn = Attention(d)
        self.flag = flag  # a callable: whether to return the weights is not known here

    def forward(self, x):
        got = self.attn(x, output_attentions=self.flag())
        first = got[0]
        rest = got[1:]
        kept = (first,) + rest
        out, weights = got[:2]
        again = kept[1]
        SEEN.update(first=first.shape, again=again.shape, out=out.shape, weights=weights.shape)
        return kept


def run(flag, batch=2, t=5, d=8):
    SEEN.clear()
    Layer(d, lambda: flag)(torch.randn(batch, t, d))
    return dict(SEEN)
