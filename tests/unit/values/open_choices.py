"""A callable chosen between a local function and a registry the analysis cannot read (issue 28,
cause 5): the local function is what runs when the configuration names it."""
import torch
from torch import nn

try:
    from some_plugin_package import IMPLEMENTATIONS  # (filled at import time by another package)
except ImportError:
    IMPLEMENTATIONS = {}


def local_attention(q, k, v):
    w = torch.matmul(q, k.transpose(2, 3))
    w = w.softmax(dim=-1)
    out = torch.matmul(w, v)
    return out


class Attn(nn.Module):
    def __init__(self, impl: str, hidden: int, heads: int):
        super().__init__()
        self.impl = impl
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)

    def forward(self, x: torch.Tensor):
        b, t, c = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        fn = local_attention
        if self.impl != "local":
            fn = IMPLEMENTATIONS[self.impl]
        out = fn(q, k, v)
        y = out.transpose(1, 2).reshape(b, t, c)
        return y
