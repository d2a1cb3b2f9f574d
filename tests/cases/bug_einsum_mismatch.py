"""Bilinear attention pooling written with einsum: the contraction index j is 5 in the scores
but 6 in the values, which einsum cannot contract."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: BilinearPool(); inputs: a=[B,4,32], b=[B,5,32], c=[B,6,32]
# verify: B=2; B=1


class BilinearPool(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.W = nn.Parameter(torch.randn(dim, dim) * 0.02)
        self.out = nn.Linear(dim, dim)

    def forward(self, a: Float[Tensor, "B 4 32"], b: Float[Tensor, "B 5 32"], c: Float[Tensor, "B 6 32"]):
        aw = torch.einsum("bid,de->bie", a, self.W)  # expect: [B, 4, 32]
        scores = torch.einsum("bie,bje->bij", aw, b)  # expect: [B, 4, 5]
        probs = F.softmax(scores, dim=-1)  # expect: [B, 4, 5]
        pooled_b = torch.einsum("bij,bjd->bid", probs, b)  # expect: [B, 4, 32]
        gram = torch.einsum("bid,bjd->bij", c, c)  # expect: [B, 6, 6]
        trace = torch.einsum("bii->b", gram)  # expect: [B]
        mixed = self.out(pooled_b)  # expect: [B, 4, 32]
        outer = torch.einsum("bd,be->bde", a[:, 0], b[:, 0])  # expect: [B, 32, 32]
        pooled_c = torch.einsum("bij,bjd->bid", probs, c)  # E[SH101]
        pooled_c = F.layer_norm(pooled_c, (32,))
        return mixed, pooled_c, trace, outer
