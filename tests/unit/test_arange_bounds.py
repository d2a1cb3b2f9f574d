"""An unannotated parameter used only as `torch.arange`'s bound is a number (usage.py), not a
tensor: HF T5's `compute_bias(query_length, key_length)` builds its relative positions from
`arange(query_length)`; taken for tensors, the lengths were fresh sizes (`n_17`) no caller
could name. The shapes are checked against torch at the sizes the program runs with."""
import json
import os
import subprocess
import sys

import torch

SERVER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "server")

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
    f = tmp_path / "m.py"
    f.write_text(PROGRAM)
    out = subprocess.run([sys.executable, "-m", "shapehint.cli", "infer", str(f), "--format", "json"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=SERVER), timeout=300)
    res = json.loads(out.stdout)
    assert [d for d in res["diagnostics"] if d["severity"] == "error"] == []
    got = {v["name"]: v["shape"] for v in res["values"] if v["function"] == "Bias.compute_bias"}
    assert got["values"] == [1, "heads", "query_length", "key_length"]
    scope: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), scope)
    ran = scope["Bias"]().compute_bias(5, 7)
    sizes = {"heads": 4, "query_length": 5, "key_length": 7}
    assert [sizes.get(d, d) for d in got["values"]] == list(ran.shape)
