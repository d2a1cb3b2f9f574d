"""A GPT-style language model (after nanoGPT): config dataclass, ModuleList of blocks, causal
self-attention with view/transpose/masked_fill/softmax.

The `# expect:` comments are the shapes ShapeHint infers (the test suite checks them). Inside a
helper method the names are that method's own: `B, T, C = x.size()` names the input's axes.
"""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Int
from torch import Tensor

# entry: GPT(GPTConfig()); inputs: idx=[B,T]:long, targets=[B,T]:long
# verify: B=2,T=8; B=3,T=64; B=1,T=17


@dataclass
class GPTConfig:
    block_size: int = 64
    vocab_size: int = 512
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 128
    dropout: float = 0.0


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        mask = torch.tril(torch.ones(config.block_size, config.block_size))  # expect: [64, 64]
        self.register_buffer("bias", mask.view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)  # expect: q=[B, T, 128]; k=[B, T, 128]; v=[B, T, 128]
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # expect: [B, 4, T, 32]
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # expect: [B, 4, T, 32]
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # expect: [B, 4, T, 32]
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))  # expect: [B, 4, T, T]
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))  # expect: [B, 4, T, T]
        att = F.softmax(att, dim=-1)  # expect: [B, 4, T, T]
        att = self.attn_dropout(att)  # expect: [B, 4, T, T]
        y = att @ v  # expect: [B, 4, T, 32]
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # expect: [B, T, 128]
        y = self.c_proj(y)  # expect: [B, T, 128]
        return y


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x):
        B, T, _ = x.shape
        h = F.gelu(self.c_fc(x))  # expect: [B, T, 512]
        out = self.c_proj(h)  # expect: [B, T, 128]
        return out


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = MLP(config)

    def forward(self, x):
        B, T, _ = x.shape
        x = x + self.attn(self.ln_1(x))  # expect: [B, T, 128]
        x = x + self.mlp(self.ln_2(x))  # expect: [B, T, 128]
        return x


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.block_size, config.n_embd)
        self.drop = nn.Dropout(config.dropout)
        self.h = nn.ModuleList([Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.wte.weight = self.lm_head.weight

    def forward(self, idx: Int[Tensor, "B T"], targets: Int[Tensor, "B T"]):
        B, T = idx.size()
        assert T <= self.config.block_size, f"Cannot forward sequence of length {T}"
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)  # expect: [T]
        tok_emb = self.wte(idx)  # expect: [B, T, 128]
        pos_emb = self.wpe(pos)  # expect: [T, 128]
        x = self.drop(tok_emb + pos_emb)  # expect: [B, T, 128]
        for block in self.h:
            x = block(x)  # expect: [B, T, 128]
        x = self.ln_f(x)  # expect: [B, T, 128]
        logits = self.lm_head(x)  # expect: [B, T, 512]
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))  # expect: []
        last = logits[:, -1, :]  # expect: [B, 512]
        probs = F.softmax(last, dim=-1)  # expect: [B, 512]
        next_token = torch.multinomial(probs, num_samples=1)  # expect: [B, 1]
        extended = torch.cat((idx, next_token), dim=1)  # expect: [B, T + 1]
        return logits, loss, extended
