"""Layer stacks whose depth the code does not fix (a config field without a default, as in
`range(config.num_hidden_layers)`): a loop over the ModuleList with enumerate, a Sequential built
from a starred comprehension, one layer picked by index, and a list grown in a loop."""
from dataclasses import dataclass

import torch
import torch.nn as nn
from jaxtyping import Int
from torch import Tensor

# entry: Encoder(Config(depth=3)); inputs: tokens=[B,T]:long
# verify: B=2,T=5; B=1,T=9


@dataclass
class Config:
    depth: int
    hidden: int = 32
    classes: int = 10
    vocab: int = 50
    max_len: int = 16


class Block(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.proj(torch.relu(self.fc(self.norm(x))))


class Encoder(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.embed = nn.Embedding(config.vocab, config.hidden)
        self.pos = nn.Embedding(config.max_len, config.hidden)
        self.layers = nn.ModuleList([Block(config.hidden) for _ in range(config.depth)])
        self.tail = nn.Sequential(*[Block(config.hidden) for _ in range(config.depth)])
        stages = [nn.Linear(config.hidden, config.hidden)]
        for _ in range(1, config.depth):
            stages.append(nn.Linear(config.hidden, config.hidden))
        self.stages = nn.Sequential(*stages)
        self.head = nn.Linear(config.hidden, config.classes)

    def forward(self, tokens: Int[Tensor, "B T"]):
        B, T = tokens.shape
        positions = torch.arange(T)  # expect: [T]
        x = self.embed(tokens) + self.pos(positions)[None]  # expect: [B, T, 32]
        for i, layer in enumerate(self.layers):
            x = layer(x)  # expect: [B, T, 32]
        y = self.tail(x)  # expect: [B, T, 32]
        z = self.layers[-1](y)  # expect: [B, T, 32]
        s = self.stages(z)  # expect: [B, T, 32]
        pooled = s.mean(dim=1)  # expect: [B, 32]
        logits = self.head(pooled)  # expect: [B, 10]
        per_token = self.head(s).softmax(-1)  # expect: [B, T, 10]
        return logits, per_token
