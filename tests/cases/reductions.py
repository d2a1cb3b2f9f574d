"""Reductions with and without keepdim; max/min returning (values, indices); norms and stats."""
import torch
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: summarize; inputs: x=[B,T,D]
# verify: B=2,T=5,D=7; B=4,T=3,D=16


def summarize(x: Float[Tensor, "B T D"]):
    total = x.sum()  # expect: []
    per_item = x.sum(dim=(1, 2))  # expect: [B]
    over_time = x.mean(dim=1)  # expect: [B, D]
    keep = x.mean(dim=1, keepdim=True)  # expect: [B, 1, D]
    centred = x - keep  # expect: [B, T, D]
    var = centred.pow(2).mean(-1)  # expect: [B, T]
    std = x.std(dim=-1, keepdim=True)  # expect: [B, T, 1]
    mx, argmx = x.max(dim=1)  # expect: mx=[B, D]; argmx=[B, D]
    mn, argmn = torch.min(x, dim=-1, keepdim=True)  # expect: mn=[B, T, 1]; argmn=[B, T, 1]
    global_max = x.max()  # expect: []
    amax = x.amax(dim=(0, 2))  # expect: [T]
    best = x.argmax(dim=-1)  # expect: [B, T]
    flat_best = x.argmax()  # expect: []
    l2 = x.norm(dim=-1)  # expect: [B, T]
    l2_keep = torch.linalg.vector_norm(x, dim=2, keepdim=True)  # expect: [B, T, 1]
    unit = x / l2_keep  # expect: [B, T, D]
    lse = torch.logsumexp(x, dim=1)  # expect: [B, D]
    prod = x.prod(dim=0)  # expect: [T, D]
    csum = x.cumsum(dim=1)  # expect: [B, T, D]
    any_pos = (x > 0).any(dim=-1)  # expect: [B, T]
    n_pos = (x > 0).sum(dim=(1, 2))  # expect: [B]
    med, med_idx = x.median(dim=1)  # expect: med=[B, D]; med_idx=[B, D]
    attn = F.softmax(x, dim=1)  # expect: [B, T, D]
    pooled = (attn * x).sum(1)  # expect: [B, D]
    return total, per_item, over_time, var, std, mx, mn, global_max, amax, best, flat_best, l2, unit, lse, prod, csum, any_pos, n_pos, med, pooled
