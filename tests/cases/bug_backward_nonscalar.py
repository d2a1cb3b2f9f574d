"""A training step that keeps the per-element losses (reduction="none") and calls backward() on
the [B, 10] tensor: backward needs a scalar (or an explicit gradient)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: train_step; inputs: x=[B,20], y=[B,10]
# verify: B=4; B=1

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def train_step(x: Float[Tensor, "B 20"], y: Float[Tensor, "B 10"]):
    opt.zero_grad()
    pred = model(x)  # expect: [B, 10]
    per_elem = F.mse_loss(pred, y, reduction="none")  # expect: [B, 10]
    per_sample = per_elem.mean(dim=1)  # expect: [B]
    weights = torch.softmax(-per_sample, dim=0)  # expect: [B]
    weighted = per_elem * weights[:, None]  # expect: [B, 10]
    reg = pred.pow(2).mean()  # expect: []
    l1 = (pred - y).abs()  # expect: [B, 10]
    worst = per_elem.max(dim=0).values  # expect: [10]
    total_ok = weighted.sum() + 1e-4 * reg  # expect: []
    weighted.backward()  # E[SH109]
    opt.step()
    for group in opt.param_groups:
        group["lr"] *= 0.99
    return total_ok, l1, worst
