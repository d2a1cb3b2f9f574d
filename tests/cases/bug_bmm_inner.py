"""Luong-style attention that forgot to transpose the keys: bmm of [B, 10, 64] by [B, 10, 64]
needs the inner sizes 64 and 10 to agree."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: LuongAttention(); inputs: query=[B,10,64], memory=[B,10,64]
# verify: B=3; B=1


class LuongAttention(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.w_q = nn.Linear(dim, dim, bias=False)
        self.w_k = nn.Linear(dim, dim, bias=False)
        self.out = nn.Linear(2 * dim, dim)

    def forward(self, query: Float[Tensor, "B 10 64"], memory: Float[Tensor, "B 10 64"]):
        q = self.w_q(query)  # expect: [B, 10, 64]
        k = self.w_k(memory)  # expect: [B, 10, 64]
        q = F.normalize(q, dim=-1)  # expect: [B, 10, 64]
        k = F.normalize(k, dim=-1)  # expect: [B, 10, 64]
        gate = torch.sigmoid(q.mean(dim=1, keepdim=True))  # expect: [B, 1, 64]
        k = k * gate  # expect: [B, 10, 64]
        diag = (q * k).sum(-1)  # expect: [B, 10]
        right = torch.bmm(q, k.transpose(1, 2))  # expect: [B, 10, 10]
        scores = torch.bmm(q, k)  # E[SH101]
        weights = F.softmax(scores, dim=-1)
        ctx = torch.bmm(weights, memory)
        return self.out(torch.cat([ctx, query], dim=-1)), right, diag
