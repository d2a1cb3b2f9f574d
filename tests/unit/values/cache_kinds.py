"""A cache that is one class or another (issue 28, cause 7): `isinstance` on the join of instances
of two known classes picks the class in each arm, and the picked object's method runs. `Given`
takes the store optionally, as decoders do: made only when the configuration asks for a cache and
none was given, paired when it says so (None, one class or the other: the `None` test and then the
`isinstance` test narrow it)."""
import torch
from torch import nn


class Store:
    def __init__(self):
        self.keys = []

    def update(self, k, layer):
        if len(self.keys) <= layer:
            self.keys.append(k)
        else:
            self.keys[layer] = torch.cat([self.keys[layer], k], dim=-2)
        return self.keys[layer]


class PairStore:
    def __init__(self, own, other):
        self.own = own
        self.other = other


class Attn(nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer
        self.k = nn.Linear(16, 8)

    def forward(self, x: torch.Tensor, store=None):
        assert x.dim() == 3
        k = self.k(x)
        if store is not None:
            if isinstance(store, PairStore):
                part = store.own
            else:
                part = store
            k = part.update(k, self.layer)
        scores = k @ k.transpose(-1, -2)
        return scores


class Model(nn.Module):
    def __init__(self, paired):
        super().__init__()
        self.paired = paired  # (a flag the analysis does not read: either kind of store)
        self.blocks = nn.ModuleList([Attn(0), Attn(1)])

    def forward(self, x: torch.Tensor):
        assert x.dim() == 3
        if self.paired:
            store = PairStore(Store(), Store())
        else:
            store = Store()
        outs = []
        for block in self.blocks:
            y = block(x, store)
            outs.append(y)
        again = self.blocks[0](x, store)  # layer 0 once more: its keys are now twice as long
        return {"y": y, "again": again}


class Given(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.blocks = nn.ModuleList([Attn(0), Attn(1)])

    def forward(self, x: torch.Tensor, store: "Optional[Store]" = None, use_cache: "Optional[bool]" = None):
        assert x.dim() == 3
        use_cache = use_cache if use_cache is not None else self.config.use_cache
        if use_cache:
            if store is None:
                store = Store()
            if self.config.paired and not isinstance(store, PairStore):
                store = PairStore(store, Store())
        for block in self.blocks:
            y = block(x, store)
        again = self.blocks[0](x, store)
        return {"y": y, "again": again}
