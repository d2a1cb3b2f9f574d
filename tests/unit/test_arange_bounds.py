"""An unannotated parameter used only as `torch.arange`'s bound is a number (usage.py), not a
tensor: HF T5's `compute_bias(query_length, key_length)` builds its relative positions from
`arange(query_length)`; taken for tensors, the lengths were fresh sizes (`n_17`) no caller
could name. The shapes are checked against torch at the sizes the program runs with."""

from .program_runs import infer, run


PROGRAM = '''import torch
from torch import nn


class Bias(nn.Module):
    def __init__(self, buckets=32, heads=4):
        super().__init__()
        self.emb = nn.Embedding(buckets, heads)

    def compute_bias(self, query_length, key_length):
        context = torch.arange(query_length, dtype=torch.long)[:, None]
        memory = torch.arange(key_length, dtype=torch.long)[None, :]
        relative = (memory - context).clamp(0, 31)
        values = self.emb(relative).permute([2, 0, 1]).unsqueeze(0)
        return values
'''


def test_arange_bounds_are_lengths_named_after_the_parameters(tmp_path):
    res = infer(tmp_path, PROGRAM)
    assert [d for d in res["diagnostics"] if d["severity"] == "error"] == []
    got = {v["name"]: v["shape"] for v in res["values"] if v["function"] == "Bias.compute_bias"}
    assert got["values"] == [1, "heads", "query_length", "key_length"]
    ran = run(PROGRAM)["Bias"]().compute_bias(5, 7)
    sizes = {"heads": 4, "query_length": 5, "key_length": 7}
    assert [sizes.get(d, d) for d in got["values"]] == list(ran.shape)
