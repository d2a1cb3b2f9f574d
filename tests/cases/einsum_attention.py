"""Multi-head attention written with einsum: heads split with view(B, T, 12, C // 12); the
number of heads is a constant, the model width C comes from the input."""
import torch
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: multihead_attention; inputs: q=[B,T,C], k=[B,S,C], v=[B,S,C]
# verify: B=2,T=5,S=7,C=24; B=1,T=9,S=3,C=48; B=3,T=4,S=4,C=12

N_HEAD = 12


def multihead_attention(q: Float[Tensor, "B T C"], k: Float[Tensor, "B S C"], v: Float[Tensor, "B S C"]):
    B, T, C = q.shape
    S = k.shape[1]
    qh = q.view(B, T, N_HEAD, C // N_HEAD)  # expect: [B, T, 12, C//12]
    kh = k.view(B, S, N_HEAD, C // N_HEAD)  # expect: [B, S, 12, C//12]
    vh = v.view(B, S, N_HEAD, C // N_HEAD)  # expect: [B, S, 12, C//12]
    scores = torch.einsum("bthd,bshd->bhts", qh, kh)  # expect: [B, 12, T, S]
    scores = scores / (C // N_HEAD) ** 0.5  # expect: [B, 12, T, S]
    weights = F.softmax(scores, dim=-1)  # expect: [B, 12, T, S]
    ctx = torch.einsum("bhts,bshd->bthd", weights, vh)  # expect: [B, T, 12, C//12]
    merged = ctx.reshape(B, T, C)  # expect: [B, T, C]
    head_mean = weights.mean(dim=1)  # expect: [B, T, S]
    outer = torch.einsum("bi,bj->bij", q[:, 0], k[:, 0])  # expect: [B, C, C]
    trace = torch.einsum("bii->b", outer)  # expect: [B]
    bilinear = torch.einsum("btc,bsc->bts", q, k)  # expect: [B, T, S]
    summed = torch.einsum("btc->bc", q)  # expect: [B, C]
    ell = torch.einsum("...c,...c->...", q, q)  # expect: [B, T]
    return merged, head_mean, trace, bilinear, summed, ell
