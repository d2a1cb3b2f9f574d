"""GPT in the nanoGPT layout: layers in `nn.ModuleDict(dict(...))` reached as attributes
(`self.transformer.wte`), `forward(idx, targets=None)` whose loss branch only runs when targets
are given, and an attention whose padding mask is an optional argument."""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

# entry: TinyGPT(TinyConfig()); inputs: idx=[B,T]:long, targets=[B,T]:long
# verify: B=2,T=8; B=1,T=16; B=3,T=3


@dataclass
class TinyConfig:
    vocab_size: int = 120
    block_size: int = 16
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 48


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_head = cfg.n_head
        self.qkv = nn.Linear(cfg.n_embd, 3 * cfg.n_embd)
        self.out = nn.Linear(cfg.n_embd, cfg.n_embd)

    def forward(self, x, pad_mask=None):
        B, T, C = x.size()
        q, k, v = self.qkv(x).split(C, dim=2)  # expect: q=[B, T, 48]; k=[B, T, 48]; v=[B, T, 48]
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # expect: [B, 4, T, 12]
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # expect: [B, 4, T, 12]
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # expect: [B, 4, T, 12]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))  # expect: [B, 4, T, T]
        if pad_mask is not None:
            keep = pad_mask.view(B, 1, 1, T)  # expect: [B, 1, 1, T]
            att = att.masked_fill(~keep, float("-inf"))  # expect: [B, 4, T, T]
        att = F.softmax(att, dim=-1)  # expect: [B, 4, T, T]
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)  # expect: [B, T, 48]
        return self.out(y)


class Layer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.n_embd)
        self.attn = Attention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.n_embd)
        self.mlp = nn.Sequential(nn.Linear(cfg.n_embd, 4 * cfg.n_embd), nn.GELU(), nn.Linear(4 * cfg.n_embd, cfg.n_embd))

    def forward(self, x, pad_mask=None):
        B, T, _ = x.shape
        x = x + self.attn(self.ln_1(x), pad_mask)  # expect: [B, T, 48]
        x = x + self.mlp(self.ln_2(x))  # expect: [B, T, 48]
        return x


class TinyGPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(cfg.vocab_size, cfg.n_embd),
            wpe=nn.Embedding(cfg.block_size, cfg.n_embd),
            h=nn.ModuleList([Layer(cfg) for _ in range(cfg.n_layer)]),
            ln_f=nn.LayerNorm(cfg.n_embd),
        ))
        self.lm_head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight

    def forward(self, idx, targets=None):
        b, t = idx.size()
        assert t <= self.cfg.block_size
        pos = torch.arange(0, t, dtype=torch.long)  # expect: [t]
        tok_emb = self.transformer.wte(idx)  # expect: [b, t, 48]
        pos_emb = self.transformer.wpe(pos)  # expect: [t, 48]
        x = tok_emb + pos_emb  # expect: [b, t, 48]
        pad = idx != 0  # expect: [b, t]
        for block in self.transformer.h:
            x = block(x, pad)  # expect: [b, t, 48]
        x = self.transformer.ln_f(x)  # expect: [b, t, 48]
        if targets is not None:
            logits = self.lm_head(x)  # expect: [b, t, 120]
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))  # expect: []
        else:
            logits = self.lm_head(x[:, [-1], :])
            loss = None
        return logits, loss
