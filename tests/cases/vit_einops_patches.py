"""ViT patch embedding with einops: rearrange into patches, Linear projection, einsum
attention with heads split by rearrange, reduce for pooling."""
import torch
import torch.nn as nn
from einops import rearrange, reduce
from jaxtyping import Float
from torch import Tensor

# entry: EinopsViT(); inputs: img=[B,3,H,W]
# verify: B=2,H=32,W=32; B=1,H=16,W=64; B=3,H=48,W=16


class EinopsViT(nn.Module):
    def __init__(self, patch=16, dim=96, heads=4, num_classes=7):
        super().__init__()
        self.patch = patch
        self.heads = heads
        self.proj = nn.Linear(3 * patch * patch, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, img: Float[Tensor, "B 3 H W"]):
        B, _, H, W = img.shape
        assert H % 16 == 0 and W % 16 == 0
        p = rearrange(img, "b c (h ph) (w pw) -> b (h w) (ph pw c)", ph=16, pw=16)  # expect: [B, (H//16)*(W//16), 768]
        x = self.proj(p)  # expect: [B, (H//16)*(W//16), 96]
        qkv = self.qkv(x)  # expect: [B, (H//16)*(W//16), 288]
        q, k, v = rearrange(qkv, "b n (three h d) -> three b h n d", three=3, h=self.heads)  # expect: q=[B, 4, (H//16)*(W//16), 24]; k=[B, 4, (H//16)*(W//16), 24]; v=[B, 4, (H//16)*(W//16), 24]
        att = torch.einsum("bhid,bhjd->bhij", q, k).softmax(dim=-1)  # expect: [B, 4, (H//16)*(W//16), (H//16)*(W//16)]
        y = torch.einsum("bhij,bhjd->bhid", att, v)  # expect: [B, 4, (H//16)*(W//16), 24]
        y = rearrange(y, "b h n d -> b n (h d)")  # expect: [B, (H//16)*(W//16), 96]
        x = x + self.out(y)  # expect: [B, (H//16)*(W//16), 96]
        pooled = reduce(x, "b n d -> b d", "mean")  # expect: [B, 96]
        logits = self.head(pooled)  # expect: [B, 7]
        fmap = rearrange(x, "b (h w) d -> b d h w", w=W // 16)  # expect: [B, 96, H//16, W//16]
        return logits, fmap
