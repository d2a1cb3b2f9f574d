"""BERT-style encoder: config object, embeddings (word + position + token type), an extended
attention mask [B, 1, 1, T] added to the scores, a pooler and a classification head."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Bool, Int
from torch import Tensor

# entry: BertClassifier(BertConfig()); inputs: input_ids=[B,T]:long, token_type_ids=[B,T]:long, attention_mask=[B,T]:bool
# verify: B=2,T=16; B=3,T=7


@dataclass
class BertConfig:
    vocab_size: int = 1000
    hidden_size: int = 96
    num_hidden_layers: int = 2
    num_attention_heads: int = 6
    intermediate_size: int = 384
    max_position_embeddings: int = 128
    type_vocab_size: int = 2
    num_labels: int = 3


class BertSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_size = config.hidden_size // config.num_attention_heads
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.value = nn.Linear(config.hidden_size, config.hidden_size)
        self.output = nn.Linear(config.hidden_size, config.hidden_size)
        self.norm = nn.LayerNorm(config.hidden_size)

    def split_heads(self, t):
        B, T, _ = t.shape
        heads = t.view(B, T, self.num_heads, self.head_size)  # expect: [B, T, 6, 16]
        return heads.permute(0, 2, 1, 3)

    def forward(self, hidden, ext_mask):
        B, T, _ = hidden.shape
        assert ext_mask.shape == (B, 1, 1, T)
        q = self.split_heads(self.query(hidden))  # expect: [B, 6, T, 16]
        k = self.split_heads(self.key(hidden))  # expect: [B, 6, T, 16]
        v = self.split_heads(self.value(hidden))  # expect: [B, 6, T, 16]
        scores = torch.matmul(q, k.transpose(-1, -2)) / self.head_size ** 0.5  # expect: [B, 6, T, T]
        scores = scores + ext_mask  # expect: [B, 6, T, T]
        probs = scores.softmax(dim=-1)  # expect: [B, 6, T, T]
        ctx = torch.matmul(probs, v)  # expect: [B, 6, T, 16]
        ctx = ctx.permute(0, 2, 1, 3).reshape(B, T, -1)  # expect: [B, T, 96]
        out = self.norm(hidden + self.output(ctx))  # expect: [B, T, 96]
        return out


class BertLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = BertSelfAttention(config)
        self.intermediate = nn.Linear(config.hidden_size, config.intermediate_size)
        self.output = nn.Linear(config.intermediate_size, config.hidden_size)
        self.norm = nn.LayerNorm(config.hidden_size)

    def forward(self, hidden, ext_mask):
        B, T, _ = hidden.shape
        attn = self.attention(hidden, ext_mask)  # expect: [B, T, 96]
        inter = F.gelu(self.intermediate(attn))  # expect: [B, T, 384]
        out = self.norm(attn + self.output(inter))  # expect: [B, T, 96]
        return out


class BertClassifier(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.word = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.emb_norm = nn.LayerNorm(config.hidden_size)
        self.layers = nn.ModuleList([BertLayer(config) for _ in range(config.num_hidden_layers)])
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, input_ids: Int[Tensor, "B T"], token_type_ids: Int[Tensor, "B T"],
                attention_mask: Bool[Tensor, "B T"]):
        B, T = input_ids.shape
        positions = torch.arange(T).unsqueeze(0)  # expect: [1, T]
        emb = self.word(input_ids) + self.position(positions) + self.token_type(token_type_ids)  # expect: [B, T, 96]
        hidden = self.emb_norm(emb)  # expect: [B, T, 96]
        ext_mask = attention_mask[:, None, None, :].float()  # expect: [B, 1, 1, T]
        ext_mask = (1.0 - ext_mask) * -10000.0  # expect: [B, 1, 1, T]
        for layer in self.layers:
            hidden = layer(hidden, ext_mask)  # expect: [B, T, 96]
        cls = hidden[:, 0]  # expect: [B, 96]
        pooled = torch.tanh(self.pooler(cls))  # expect: [B, 96]
        logits = self.classifier(pooled)  # expect: [B, 3]
        mask_f = attention_mask.unsqueeze(-1).float()  # expect: [B, T, 1]
        mean_pooled = (hidden * mask_f).sum(1) / mask_f.sum(1).clamp(min=1.0)  # expect: [B, 96]
        return logits, mean_pooled
