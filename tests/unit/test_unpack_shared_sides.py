"""Unpacking the shape of a value that holds only the front of a segment whose two named ends
may share axes (analysis/ranks.py). `m = (x.sum(-1) != 0)` names x's last axis; `x[:, :, 2:]`
then names its first three, which for a 3-D x include that last one. `m` holds the segment
without the last axis, so it may have 2 axes although 3 are named in front: `a, b = m.size()`
must not teach a rank (before, it fixed x at 4-D and reported a false SH111 on a model's
vision tower, where every 3-D input works). Checked against torch."""
import torch

from shapehint.analysis.api import analyze_source

PROGRAM = '''from typing import Optional
import torch
from torch import nn


def expand(mask: torch.Tensor, tgt_len: Optional[int] = None):
    bsz, src_len = mask.size()
    tgt_len = tgt_len if tgt_len is not None else src_len
    return mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len)


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 4)

    def forward(self, patches, attention_mask: Optional[torch.Tensor] = None):
        if attention_mask is None:
            attention_mask = (patches.sum(dim=-1) != 0).float()
        emb = self.proj(patches[:, :, 2:])
        wide = expand(attention_mask, emb.shape[1])
        return emb, wide


def run(patches):
    tower = Tower()
    return tower(patches)
'''


def test_a_front_only_value_teaches_no_rank_and_raises_no_false_error():
    r = analyze_source(PROGRAM, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    ns: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), ns)
    emb, wide = ns["run"](torch.randn(2, 5, 8))  # a 3-D input works: the error was false
    assert list(emb.shape) == [2, 5, 4] and list(wide.shape) == [2, 1, 5, 5]
