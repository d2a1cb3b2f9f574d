"""Vision Transformer: conv patch embedding, flatten(2).transpose(1, 2), class token, position
embeddings, pre-norm blocks built on nn.MultiheadAttention (batch_first)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: ViT(); inputs: img=[B,3,32,32]
# verify: B=2; B=5


class PatchEmbed(nn.Module):
    def __init__(self, img_size=32, patch_size=4, in_chans=3, embed_dim=192):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        B, C, H, W = x.shape
        x = self.proj(x)  # expect: [B, 192, (H - 4)//4 + 1, (W - 4)//4 + 1]
        x = x.flatten(2)  # expect: [B, 192, ((H - 4)//4 + 1)*((W - 4)//4 + 1)]
        x = x.transpose(1, 2)  # expect: [B, ((H - 4)//4 + 1)*((W - 4)//4 + 1), 192]
        return x


class EncoderBlock(nn.Module):
    def __init__(self, dim=192, heads=3, mlp_ratio=4):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * mlp_ratio), nn.GELU(), nn.Linear(dim * mlp_ratio, dim))

    def forward(self, x):
        B, N, _ = x.shape
        h = self.norm1(x)  # expect: [B, N, 192]
        attn_out, attn_w = self.attn(h, h, h)  # expect: attn_out=[B, N, 192]; attn_w=[B, N, N]
        x = x + attn_out  # expect: [B, N, 192]
        x = x + self.mlp(self.norm2(x))  # expect: [B, N, 192]
        return x


class ViT(nn.Module):
    def __init__(self, num_classes=100, depth=3, dim=192):
        super().__init__()
        self.patch_embed = PatchEmbed(embed_dim=dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, self.patch_embed.num_patches + 1, dim))
        self.blocks = nn.ModuleList([EncoderBlock(dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, img: Float[Tensor, "B 3 32 32"]):
        B = img.shape[0]
        tokens = self.patch_embed(img)  # expect: [B, 64, 192]
        cls = self.cls_token.expand(B, -1, -1)  # expect: [B, 1, 192]
        x = torch.cat((cls, tokens), dim=1)  # expect: [B, 65, 192]
        x = x + self.pos_embed  # expect: [B, 65, 192]
        for blk in self.blocks:
            x = blk(x)  # expect: [B, 65, 192]
        x = self.norm(x)  # expect: [B, 65, 192]
        cls_out = x[:, 0]  # expect: [B, 192]
        logits = self.head(cls_out)  # expect: [B, 100]
        patch_tokens = x[:, 1:]  # expect: [B, 64, 192]
        grid = patch_tokens.transpose(1, 2).reshape(B, 192, 8, 8)  # expect: [B, 192, 8, 8]
        return logits, grid
