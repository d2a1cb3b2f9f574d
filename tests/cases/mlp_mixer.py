"""MLP-Mixer: patches via a strided conv, token-mixing MLP applied across the patch axis by
transposing, channel-mixing MLP, global average pooling."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: MLPMixer(); inputs: img=[B,3,64,64]
# verify: B=2; B=3


class MixerBlock(nn.Module):
    def __init__(self, num_patches=64, dim=128, token_hidden=32, channel_hidden=256):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_fc1 = nn.Linear(num_patches, token_hidden)
        self.token_fc2 = nn.Linear(token_hidden, num_patches)
        self.norm2 = nn.LayerNorm(dim)
        self.channel_fc1 = nn.Linear(dim, channel_hidden)
        self.channel_fc2 = nn.Linear(channel_hidden, dim)

    def forward(self, x):
        B, _, _ = x.shape
        y = self.norm1(x).transpose(1, 2)  # expect: [B, 128, 64]
        y = self.token_fc2(F.gelu(self.token_fc1(y)))  # expect: [B, 128, 64]
        x = x + y.transpose(1, 2)  # expect: [B, 64, 128]
        z = F.gelu(self.channel_fc1(self.norm2(x)))  # expect: [B, 64, 256]
        x = x + self.channel_fc2(z)  # expect: [B, 64, 128]
        return x


class MLPMixer(nn.Module):
    def __init__(self, patch=8, dim=128, depth=4, num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)
        self.blocks = nn.Sequential(*[MixerBlock(dim=dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, img: Float[Tensor, "B 3 64 64"]):
        patches = self.stem(img)  # expect: [B, 128, 8, 8]
        tokens = patches.flatten(2).transpose(1, 2)  # expect: [B, 64, 128]
        mixed = self.blocks(tokens)  # expect: [B, 64, 128]
        normed = self.norm(mixed)  # expect: [B, 64, 128]
        pooled = normed.mean(dim=1)  # expect: [B, 128]
        logits = self.head(pooled)  # expect: [B, 10]
        return logits
