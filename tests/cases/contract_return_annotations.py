"""Return annotations are contracts (SH110): checked on every `return` path, their names shared
with the parameters' annotations, and callers take the declared result as a fact. Python does
not execute annotations, so each wrong one is an error of its own (no path ends there)."""
import torch
import torch.nn as nn
from jaxtyping import Float, Shaped
from torch import Tensor

# entry: pool_tokens; inputs: x=[B,T,64]
# entry: forgot_to_pool; inputs: x=[B,T,64]
# entry: grid; inputs:
# entry: concat; inputs: a=[N,8], b=[M,8]
# entry: stacked; inputs: a=[N,8], b=[N,8]
# entry: split_heads; inputs: x=[B,T,64]
# entry: head; inputs: x=[B,T,64]
# verify: B=2,T=5,N=3,M=4; B=3,T=1,N=2,M=2


def pool_tokens(x: Float[Tensor, "B T 64"]) -> Float[Tensor, "B 64"]:
    pooled = x.mean(dim=1)  # expect: [B, 64]
    return pooled


def forgot_to_pool(x: Float[Tensor, "B T 64"]) -> Float[Tensor, "B 64"]:
    y = torch.relu(x)  # expect: [B, T, 64]
    return y  # E[SH110]


def grid() -> Shaped[Tensor, "4 3"]:
    flat = torch.arange(6)  # expect: [6]
    return flat.reshape(2, 3)  # E[SH110]


def concat(a: Float[Tensor, "N 8"], b: Float[Tensor, "M 8"]) -> Float[Tensor, "N+M 8"]:
    both = torch.cat([a, b], dim=0)  # expect: [N + M, 8]
    return both


def stacked(a: Float[Tensor, "N 8"], b: Float[Tensor, "N 8"]) -> Float[Tensor, "N+N 8"]:
    pair = torch.stack([a, b], dim=0)  # expect: [2, N, 8]
    return pair.view(-1, 8) * 2  # the twin: [2*N, 8] is N+N rows


def split_heads(x: Float[Tensor, "B T 64"]) -> tuple[Float[Tensor, "B T 32"], Float[Tensor, "B T 32"]]:
    left, right = x.chunk(2, dim=-1)  # expect: left=[B, T, 32]; right=[B, T, 32]
    if x.shape[1] > 1:
        return left, right
    return left, x  # E[SH110]


def head(x: Float[Tensor, "B T 64"]) -> Float[Tensor, "B 10"]:
    proj = nn.Linear(64, 10)
    pooled = pool_tokens(x)  # expect: [B, 64]
    logits = proj(pooled)  # expect: [B, 10]
    return logits
