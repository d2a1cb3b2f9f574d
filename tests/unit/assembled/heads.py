import torch
from torch import nn
from einops import rearrange, repeat, reduce
from einops.layers.torch import Rearrange, Reduce


class Attn(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.patch = nn.Sequential(Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=4, p2=4), nn.Linear(48, dim))
        self.pool = nn.Sequential(Reduce("b n d -> b d", "mean"), nn.Linear(dim, 10))

    def forward(self, img):
        img = torch.randn(2, 3, 16, 16)
        x = self.patch(img)
        qkv = self.qkv(x).chunk(3, dim=-1)
        q, k, v = map(lambda t: rearrange(t, "b n (h d) -> b h n d", h=self.heads), qkv)
        att = q @ k.transpose(-1, -2)
        o = rearrange(att @ v, "b h n d -> b n (h d)")
        r = repeat(o[:, 0], "b d -> b n d", n=5)
        m = reduce(o, "b n d -> b d", "max")
        y = self.pool(o)
        return y
