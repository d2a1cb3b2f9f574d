"""A stack of blocks of unknown depth (a config field without a default) built for 64 features
and fed the embedding's 48: the first block's Linear fails whatever the depth (>= 1)."""
from dataclasses import dataclass

import torch
import torch.nn as nn
from jaxtyping import Int
from torch import Tensor

# entry: Tagger(Config(depth=2)); inputs: tokens=[B,T]:long
# verify: B=2,T=6


@dataclass
class Config:
    depth: int
    vocab: int = 100
    embed: int = 48
    hidden: int = 64


class Block(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Tagger(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.embed = nn.Embedding(config.vocab, 48)  # widths fixed: Config's defaults are one value
        self.norm = nn.LayerNorm(48)
        self.gate = nn.Linear(48, 1)
        self.blocks = nn.ModuleList([Block(64) for _ in range(config.depth)])

    def forward(self, tokens: Int[Tensor, "B T"]):
        mask = tokens != 0  # expect: [B, T]
        h = self.embed(tokens)  # expect: [B, T, 48]
        h = h * mask[..., None]  # expect: [B, T, 48]
        h = self.norm(h)  # expect: [B, T, 48]
        g = torch.sigmoid(self.gate(h))  # expect: [B, T, 1]
        h = h * g  # expect: [B, T, 48]
        lengths = mask.sum(dim=1)  # expect: [B]
        mean = h.sum(dim=1) / lengths[:, None].clamp(min=1)  # expect: [B, 48]
        h = h - mean[:, None, :]  # expect: [B, T, 48]
        for block in self.blocks:
            h = block(h)  # E[SH101]
        return h
