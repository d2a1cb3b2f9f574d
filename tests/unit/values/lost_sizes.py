"""A projection whose width the analysis does not know (a configuration's attribute with a None
default, or the product of two): its weight and bias are lost, so is `addmm`'s result, and the
`.view` back to the input's leading axes still gives them, the width a size of its own."""
import torch
from torch import nn


class TinyConfig:
    def __init__(self, hidden_size=8, n_inner=None):
        self.hidden_size = hidden_size
        self.n_inner = n_inner


class Proj(nn.Module):
    """A linear layer with its weight stored transposed, `[n_in, n_out]`."""

    def __init__(self, n_out, n_in):
        super().__init__()
        self.n_out = n_out
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.n_out,)
        y = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        y = y.view(size_out)
        return y


class Block(nn.Module):
    config_class = TinyConfig

    def __init__(self, config):
        super().__init__()
        w = config.hidden_size
        inner = config.n_inner if config.n_inner is not None else 4 * w
        self.up = Proj(inner, w)
        self.down = Proj(w, inner)
        self.inner = config.n_inner

    def forward(self, x):
        x = x.view(-1, x.shape[-2], x.shape[-1])
        a = self.up(x)
        b = self.down(a)
        # one argument the analysis does not know may be the whole shape (`(2, 12)`): no rank claimed
        c = b.new_zeros(24).view(self.inner)
        return b, c

