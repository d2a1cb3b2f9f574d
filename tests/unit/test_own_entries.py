"""Each decoder layer's own entry of a per-layer cache (own_entries.py, issue 28).

A decoder's layers are built as `[Attn(config, i) for i in range(config.n_layers)]` and a cache
holds one entry per layer in a list of unknown length; each layer calls `cache.update(k,
self.idx)`, which concatenates the entry's keys with its own. The loop over the layers, run to
a fixpoint, saw in its second pass what the first pass wrote, joined: a key length of `?` where
each layer's entry starts empty. Now a list read at the index the loop's layer holds gives that
pass its own entry, as it was before the loop.

Where the items are not distinct objects (`[one for _ in range(n)]`: the same layer n times,
each update adding to the last), or the loop runs inside another loop over the same layers, no
length is claimed. Every shape claimed is checked against torch on the meta device: the program
itself records the shape each layer's update gave."""
import torch

from shapehint.analysis.api import analyze_source

from .program_runs import run

PROGRAM = """import torch
from torch import nn

SEEN = []


class Entry:
    def __init__(self):
        self.keys = None
        self.ready = False

    def start(self, k):
        self.keys = torch.tensor([], dtype=k.dtype, device=k.device)
        self.ready = True

    def update(self, k):
        if not self.ready:
            self.start(k)
        self.keys = torch.cat([self.keys, k], dim=-2)
        return self.keys


class Cache:
    def __init__(self, config):
        ENTRIES

    def update(self, k, idx):
        return self.entries[idx].update(k)


class Attn(nn.Module):
    def __init__(self, config, idx):
        super().__init__()
        self.idx = idx
        self.heads = config.heads
        self.q = nn.Linear(config.d, config.d)
        self.k = nn.Linear(config.d, config.d)

    def forward(self, x, cache=None):
        b, t, c = x.shape
        q = self.q(x).view(b, t, self.heads, -1).transpose(1, 2)
        k = self.k(x).view(b, t, self.heads, -1).transpose(1, 2)
        if cache is not None:
            keys = cache.update(k, self.idx)
            SEEN.append(list(keys.shape))
            w = q @ keys.transpose(-1, -2)
            return (w @ keys).transpose(1, 2).reshape(b, t, c)
        return x


class Config:
    def __init__(self, d=32, heads=2, n_layers=3):
        self.d = d
        self.heads = heads
        self.n_layers = n_layers


class Decoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.layers = nn.ModuleList([Attn(config, i) for i in range(config.n_layers)])

    def forward(self, x: torch.Tensor):
        cache = Cache(self.config)
        LOOP
        return x
"""

OWN = "self.entries = [Entry() for _ in range(config.n_layers)]"
APPENDED = "self.entries = []\n        for _ in range(config.n_layers):\n            self.entries.append(Entry())"
SHARED = "one = Entry()\n        self.entries = [one for _ in range(config.n_layers)]"
ONCE = "for layer in self.layers:\n            x = layer(x, cache)"
ENUMERATED = "for i, layer in enumerate(self.layers):\n            x = layer(x, cache)"
TWICE = "for layer in self.layers:\n            for other in self.layers:\n                x = other(x, cache)"


def _program(entries: str, loop: str) -> str:
    return PROGRAM.replace("ENTRIES", entries).replace("LOOP", loop)


def _claimed(text: str, name: str) -> list:
    """The shapes the analysis claims for `name` in Attn.forward, per calling context."""
    r = analyze_source(text, "m.py")
    return [c["shape"] for v in r.infer_json()["values"] if v["function"] == "Attn.forward" and v["name"] == name
            for c in v.get("contexts", [])]


def _observed(text: str) -> list:
    scope = run(text)
    with torch.device("meta"):
        scope["Decoder"](scope["Config"]())(torch.zeros(2, 16, 32))
    return scope["SEEN"]


def _agrees(got, want) -> bool:
    """`got` (dims named by the input `x` and the configuration) claims nothing `want` contradicts."""
    names = {"x": torch.zeros(2, 16, 32, device="meta"), "config": run(PROGRAM)["Config"]()}
    return got == ["*?"] or len(got) == len(want) and \
        all(g == "?" or (g if isinstance(g, int) else eval(g, {}, names)) == w for g, w in zip(got, want))


def _sound(text: str) -> list:
    """What is claimed for the keys (all under one calling context): each layer's real keys
    agree with one of the claims, and each claim with one layer's."""
    seen, claims = _observed(text), _claimed(text, "keys")
    assert seen and claims
    for want in seen:
        assert any(_agrees(got, want) for got in claims), (want, claims)
    for got in claims:
        assert any(_agrees(got, want) for want in seen), (got, seen)
    return claims


def test_each_layer_reads_its_own_entry_of_a_per_layer_list():
    for entries in (OWN, APPENDED):
        for loop in (ONCE, ENUMERATED):
            text = _program(entries, loop)
            assert _observed(text) == [[2, 2, 16, 16]] * 3
            claims = _sound(text)
            # (before: the loop's second pass claimed `?`, the keys of the first pass joined in)
            assert all(c == ["x.shape[0]", "config.heads", "x.shape[1]", "config.d//config.heads"] for c in claims), \
                claims


def test_a_list_holding_one_object_n_times_claims_no_length():
    text = _program(SHARED, ONCE)
    assert _observed(text) == [[2, 2, 16, 16], [2, 2, 32, 16], [2, 2, 48, 16]]
    claims = _sound(text)
    assert any(c[2] == "?" for c in claims)


def test_a_loop_over_the_same_layers_inside_it_claims_no_length():
    text = _program(OWN, TWICE)
    seen = _observed(text)
    assert [s[2] for s in seen] == [16, 16, 16, 32, 32, 32, 48, 48, 48]
    claims = _sound(text)
    assert any(c[2] == "?" for c in claims)
