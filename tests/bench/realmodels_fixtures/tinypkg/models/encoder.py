import math

import torch
from torch import nn

from ..layers import patchify


class TinyConfig:
    def __init__(self, hidden_size=32, num_heads=4, num_layers=2, patch=4, vocab_size=50):
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.num_layers = num_layers
        self.patch = patch
        self.vocab_size = vocab_size


class SelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_heads
        self.head_dim = config.hidden_size // config.num_heads
        self.qkv = nn.Linear(config.hidden_size, 3 * config.hidden_size)
        self.out = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, hidden):
        B, T, C = hidden.shape
        qkv = self.qkv(hidden).view(B, T, 3, self.num_heads, self.head_dim)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        probs = scores.softmax(dim=-1)
        ctx = (probs @ v).transpose(1, 2).reshape(B, T, C)
        return self.out(ctx)


class Layer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attn = SelfAttention(config)
        self.norm = nn.LayerNorm(config.hidden_size)

    def forward(self, hidden):
        hidden = hidden + self.attn(self.norm(hidden))
        return hidden


class TinyEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.proj = nn.Linear(3 * config.patch * config.patch, config.hidden_size)
        self.layers = nn.ModuleList([Layer(config) for _ in range(config.num_layers)])

    def forward(self, input_ids, pixels):
        """Text tokens and image patches, one sequence."""
        tokens = self.embed(input_ids)
        patches = self.proj(patchify(pixels, self.config.patch))
        hidden = torch.cat([tokens, patches], dim=1)
        for layer in self.layers:
            hidden = layer(hidden)
        pooled = hidden[:, 0]
        return pooled
