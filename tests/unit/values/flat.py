"""Rows flattened and restored when the input's rank is unknown (issue 28, cause 4): `-1` in a
view of a tensor of unknown rank is a size of its own (the elements are not known), the other
sizes and the rank are the ones asked for; a view to sizes around another tensor's unknown axes,
none of them inferred, has those sizes."""
from typing import Optional

import torch
from torch import nn


class RowProj(nn.Module):
    """A linear layer written as a matrix product of the flattened rows."""

    def __init__(self, n_out: int, n_in: int):
        super().__init__()
        self.n_out = n_out
        self.weight = nn.Parameter(torch.randn(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        out_size = x.size()[:-1] + (self.n_out,)
        rows = x.view(-1, x.size(-1))
        prod = torch.addmm(self.bias, rows, self.weight)
        restored = prod.view(out_size)
        return {"rows": rows, "prod": prod, "restored": restored}


def flat(x):
    """Views whose inferred size counts the elements of a tensor of unknown rank."""
    every = x.view(-1)
    pairs = x.reshape(-1, 2)
    last = x.reshape(-1, x.shape[-1])
    return {"every": every, "pairs": pairs, "last": last}


def first_given(input_ids: Optional[torch.Tensor] = None, embeds: Optional[torch.Tensor] = None):
    """The entry of a text model: one of two optional inputs, the ids viewed as rows."""
    if input_ids is not None and embeds is not None:
        raise ValueError("both")
    elif input_ids is not None:
        shape = input_ids.size()
        ids = input_ids.view(-1, shape[-1])
    elif embeds is not None:
        ids = embeds[..., 0]
    else:
        raise ValueError("neither")
    return {"ids": ids}
