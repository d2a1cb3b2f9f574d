"""Caches (issue 28, cause 7): an object made only on some paths (None on the others), read where
a test says it is there, and a method declared `-> int` whose value the analysis cannot compute."""
import torch
from torch import nn


class Cache:
    def __init__(self):
        self.lengths = {}

    def get_seq_length(self, layer: int = 0) -> int:
        return self.lengths.get(layer, 0)  # (what was stored: the analysis does not know it)

    def undeclared_length(self, layer=0):
        return self.lengths.get(layer, 0)


class Embed(nn.Module):
    def __init__(self, d, config):
        super().__init__()
        self.wpe = nn.Embedding(64, d)
        self.use_cache = config.use_cache  # (unknown here: either way)

    def forward(self, x: torch.Tensor, past=None, use_cache=None):
        assert x.dim() == 3
        use_cache = use_cache if use_cache is not None else self.use_cache
        if use_cache:
            if past is None:
                past = Cache()
        seen = past.get_seq_length() if past is not None else 0
        positions = torch.arange(seen, seen + x.shape[1])
        embedded = x + self.wpe(positions.unsqueeze(0))
        if past is not None:
            offset = past.get_seq_length()
        else:
            offset = 0
        again = torch.arange(offset, offset + x.shape[1])
        first = x[:, :1] if past is None else x  # undecided: the test is not taken as known
        return {"positions": positions, "embedded": embedded, "again": again, "first": first}


def undeclared(x: torch.Tensor, cache: Cache):
    assert x.dim() == 2
    seen = cache.undeclared_length()
    positions = torch.arange(seen, seen + x.shape[1])
    return {"positions": positions}
