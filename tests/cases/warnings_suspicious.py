"""A regression script that runs but contains suspicious shape idioms: a [B, 1] prediction
against a [B] target in mse_loss (silently broadcast to [B, B]), .T on a 3-D tensor, and a
bare squeeze() that would also drop a batch of size 1."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: train_step; inputs: x=[B,12], y=[B], seq=[B,T,12]
# verify: B=4,T=3; B=2,T=5


model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 1))
proj = nn.Linear(12, 1)


def train_step(x: Float[Tensor, "B 12"], y: Float[Tensor, "B"], seq: Float[Tensor, "B T 12"]):
    pred = model(x)  # expect: [B, 1]
    loss_bad = F.mse_loss(pred, y)  # expect: []  # W[SH201]
    loss_good = F.mse_loss(pred.squeeze(-1), y)  # expect: []
    residual = pred.squeeze(1) - y  # expect: [B]
    abs_err = residual.abs().mean()  # expect: []
    scores = proj(seq)  # expect: [B, T, 1]
    flat_scores = scores.squeeze(-1)  # expect: [B, T]
    weights = flat_scores.softmax(dim=1)  # expect: [B, T]
    pooled = (weights.unsqueeze(-1) * seq).sum(1)  # expect: [B, 12]
    reversed_axes = seq.T  # expect: [12, T, B]  # W[SH203]
    per_item = proj(pooled).squeeze()  # expect: [B]  # W[SH202]
    total = loss_bad + loss_good + abs_err + per_item.sum() + reversed_axes.mean()  # expect: []
    return total
