"""A decoder that adds the encoder's summary sequence to its own hidden states: the encoder has
12 positions and the decoder 10, and [B, 12, 64] + [B, 10, 64] does not broadcast."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: FusionDecoder(); inputs: enc=[B,12,64], dec=[B,10,64]
# verify: B=2; B=4


class FusionDecoder(nn.Module):
    def __init__(self, dim=64, max_len=32):
        super().__init__()
        self.pos = nn.Parameter(torch.zeros(1, max_len, dim))
        self.enc_proj = nn.Linear(dim, dim)
        self.dec_proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, enc: Float[Tensor, "B 12 64"], dec: Float[Tensor, "B 10 64"]):
        e = self.enc_proj(enc) + self.pos[:, :12]  # expect: [B, 12, 64]
        d = self.dec_proj(dec) + self.pos[:, :10]  # expect: [B, 10, 64]
        e = self.norm(e)  # expect: [B, 12, 64]
        d = self.norm(d)  # expect: [B, 10, 64]
        summary = e.mean(dim=1, keepdim=True)  # expect: [B, 1, 64]
        d_ctx = d + summary  # expect: [B, 10, 64]
        attn = torch.softmax(d @ e.transpose(1, 2), dim=-1)  # expect: [B, 10, 12]
        ctx = attn @ e  # expect: [B, 10, 64]
        fused = d + e  # E[SH106]
        return fused, ctx, d_ctx
