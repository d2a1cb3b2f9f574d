"""GPT-style causal language model: config dataclass, ModuleList of pre-LN blocks, causal
attention via view/transpose/masked_fill/softmax, weight tying, next-token loss."""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Int
from torch import Tensor

# entry: CausalLM(LMConfig()); inputs: idx=[B,T]:long
# verify: B=2,T=10; B=1,T=32; B=3,T=2


@dataclass
class LMConfig:
    vocab_size: int = 300
    block_size: int = 32
    n_layer: int = 3
    n_head: int = 6
    n_embd: int = 96


class SelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_head = cfg.n_head
        self.qkv = nn.Linear(cfg.n_embd, 3 * cfg.n_embd)
        self.proj = nn.Linear(cfg.n_embd, cfg.n_embd)
        self.register_buffer("mask", torch.tril(torch.ones(cfg.block_size, cfg.block_size)).bool())

    def forward(self, x):
        B, T, C = x.size()
        qkv = self.qkv(x)  # expect: [B, T, 288]
        q, k, v = qkv.split(C, dim=2)  # expect: q=[B, T, 96]; k=[B, T, 96]; v=[B, T, 96]
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # expect: [B, 6, T, 16]
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # expect: [B, 6, T, 16]
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # expect: [B, 6, T, 16]
        att = q @ k.transpose(-2, -1) / math.sqrt(k.size(-1))  # expect: [B, 6, T, T]
        causal = self.mask[:T, :T]  # expect: [min(T, 32), min(T, 32)]
        att = att.masked_fill(~causal, float("-inf"))  # expect: [B, 6, T, T]
        att = F.softmax(att, dim=-1)  # expect: [B, 6, T, T]
        y = att @ v  # expect: [B, 6, T, 16]
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # expect: [B, T, 96]
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.n_embd)
        self.attn = SelfAttention(cfg)
        self.ln2 = nn.LayerNorm(cfg.n_embd)
        self.ff = nn.Sequential(nn.Linear(cfg.n_embd, 4 * cfg.n_embd), nn.GELU(), nn.Linear(4 * cfg.n_embd, cfg.n_embd))

    def forward(self, x):
        B, T, _ = x.shape
        x = x + self.attn(self.ln1(x))  # expect: [B, T, 96]
        x = x + self.ff(self.ln2(x))  # expect: [B, T, 96]
        return x


class CausalLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.pos = nn.Parameter(torch.zeros(1, cfg.block_size, cfg.n_embd))
        self.blocks = nn.ModuleList([Block(cfg) for _ in range(cfg.n_layer)])
        self.ln_f = nn.LayerNorm(cfg.n_embd)
        self.head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)
        self.head.weight = self.tok.weight

    def forward(self, idx: Int[Tensor, "B T"]):
        B, T = idx.shape
        assert T <= self.cfg.block_size
        x = self.tok(idx) + self.pos[:, :T, :]  # expect: [B, T, 96]
        for blk in self.blocks:
            x = blk(x)  # expect: [B, T, 96]
        logits = self.head(self.ln_f(x))  # expect: [B, T, 300]
        shift_logits = logits[:, :-1, :]  # expect: [B, T - 1, 300]
        shift_labels = idx[:, 1:]  # expect: [B, T - 1]
        loss = F.cross_entropy(shift_logits.reshape(-1, 300), shift_labels.reshape(-1))  # expect: []
        return logits, loss
