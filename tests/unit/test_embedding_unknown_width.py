"""Sizes read off a configuration the analysis does not follow (CLIP's text tower, built from
`config.text_config`): an `nn.Embedding` (or `EmbeddingBag`) of a width it cannot read still keeps
the index axes, its output the indices' shape and one axis more, a size of its own
(ops/families/embedding.py, `arguments.size_or_fresh`, as a Linear or a convolution of an
unknown width). Before, the call had no shape at all, and neither did everything after it.
The shapes are checked against torch at the sizes the program runs with."""
from .program_runs import infer, run


PROGRAM = '''import json

import torch
from torch import nn


class Tower(nn.Module):
    def __init__(self, spec: str):
        super().__init__()
        sub = json.loads(spec)
        self.tok = nn.Embedding(sub["vocab"], sub["width"])
        self.pos = nn.Embedding(sub["max_len"], sub["width"])
        self.bag = nn.EmbeddingBag(sub["vocab"], sub["width"], mode="sum")

    def forward(self, ids: torch.Tensor):
        assert ids.shape == (2, 5)
        emb = self.tok(ids)
        pooled = emb.mean(1)
        bagged = self.bag(ids)
        pid = torch.arange(ids.shape[-1]).unsqueeze(0)
        out = emb + self.pos(pid)
        return pooled, bagged, out


def run():
    ids = torch.zeros(2, 5, dtype=torch.long)
    m = Tower('{"vocab": 11, "width": 6, "max_len": 9}')
    pooled, bagged, out = m(ids)
    return {"emb": m.tok(ids).shape, "pooled": pooled.shape, "bagged": bagged.shape, "out": out.shape, "self": m}
'''


def _fits(claim, observed, module) -> bool:
    """Every size the claim states is the observed one: an int, or a size the module's layers
    hold (`self.tok.embedding_dim`) evaluated on the module that ran (`?` states none)."""
    env = {"__builtins__": {"max": max, "min": min}, "self": module}
    return len(claim) == len(observed) and all(
        c == "?" or (c if isinstance(c, int) else eval(c, env)) == o for c, o in zip(claim, observed))


def test_an_embedding_of_unknown_width_keeps_the_index_axes(tmp_path):
    res = infer(tmp_path, PROGRAM)
    assert [d for d in res["diagnostics"] if d["severity"] == "error"] == []
    got = {v["name"]: v["shape"] for v in res["values"] if v["function"] == "Tower.forward"}
    # the width is a size of its own, named after the layer that holds it (held_sizes.py)
    assert got["emb"] in ([2, 5, "?"], [2, 5, "self.tok.embedding_dim"]), got
    assert got["pooled"] in ([2, "?"], [2, "self.tok.embedding_dim"]), got
    assert got["bagged"] in ([2, "?"], [2, "self.bag.embedding_dim"]), got
    assert got["out"][:2] == [2, 5], got
    ran = run(PROGRAM)["run"]()
    for name in ("emb", "pooled", "bagged", "out"):
        assert _fits(got[name], list(ran[name]), ran["self"]), (name, got[name], ran[name])

