"""A small Vision Transformer whose patches are cut with einops.rearrange (any image size that
is a multiple of the patch size), a convolutional position encoding (CPVT's PEG) and a class token."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from einops import rearrange, repeat
from jaxtyping import Float
from torch import Tensor

# entry: ViT(); inputs: img=[B,3,H,W]
# verify: B=2,H=32,W=32; B=3,H=16,W=48; B=1,H=64,W=8


class Attention(nn.Module):
    def __init__(self, dim=128, heads=4):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, _ = x.shape
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)  # expect: q=[B, N, 128]; k=[B, N, 128]; v=[B, N, 128]
        q = rearrange(q, "b n (h d) -> b h n d", h=self.heads)  # expect: [B, 4, N, 32]
        k = rearrange(k, "b n (h d) -> b h n d", h=self.heads)  # expect: [B, 4, N, 32]
        v = rearrange(v, "b n (h d) -> b h n d", h=self.heads)  # expect: [B, 4, N, 32]
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale  # expect: [B, 4, N, N]
        attn = dots.softmax(dim=-1)  # expect: [B, 4, N, N]
        out = torch.matmul(attn, v)  # expect: [B, 4, N, 32]
        out = rearrange(out, "b h n d -> b n (h d)")  # expect: [B, N, 128]
        return self.to_out(out)


class ViT(nn.Module):
    def __init__(self, patch=8, dim=128, depth=2, num_classes=10):
        super().__init__()
        self.patch = patch
        self.to_embedding = nn.Linear(3 * patch * patch, dim)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.peg = nn.Conv2d(dim, dim, kernel_size=3, padding=1, groups=dim)
        self.layers = nn.ModuleList([Attention(dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, img: Float[Tensor, "B 3 H W"]):
        B, _, H, W = img.shape
        assert H % self.patch == 0 and W % self.patch == 0
        patches = rearrange(img, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=self.patch, p2=self.patch)  # expect: [B, (H//8)*(W//8), 192]
        x = self.to_embedding(patches)  # expect: [B, (H//8)*(W//8), 128]
        fmap = rearrange(x, "b (h w) d -> b d h w", h=H // self.patch)  # expect: [B, 128, H//8, W//8]
        pos = rearrange(self.peg(fmap), "b d h w -> b (h w) d")  # expect: [B, (H//8)*(W//8), 128]
        x = x + pos  # expect: [B, (H//8)*(W//8), 128]
        cls = repeat(self.cls_token, "1 1 d -> b 1 d", b=B)  # expect: [B, 1, 128]
        x = torch.cat([cls, x], dim=1)  # expect: [B, (H//8)*(W//8) + 1, 128]
        for attn in self.layers:
            x = x + attn(x)  # expect: [B, (H//8)*(W//8) + 1, 128]
        x = self.norm(x)  # expect: [B, (H//8)*(W//8) + 1, 128]
        cls_out = x[:, 0]  # expect: [B, 128]
        logits = self.head(cls_out)  # expect: [B, 10]
        grid = rearrange(x[:, 1:], "b (h w) d -> b d h w", h=H // self.patch)  # expect: [B, 128, H//8, W//8]
        return logits, grid
