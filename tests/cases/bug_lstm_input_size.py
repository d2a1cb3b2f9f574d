"""Sentiment model whose LSTM was declared for 100-dimensional inputs while the embedding table
produces 128-dimensional vectors."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Bool, Int
from torch import Tensor

# entry: SentimentLSTM(); inputs: tokens=[B,T]:long, mask=[B,T]:bool
# verify: B=2,T=12; B=1,T=3


class SentimentLSTM(nn.Module):
    def __init__(self, vocab=20000, hidden=256):  # 128 fixed (an `emb_dim=128` default is one value)
        super().__init__()
        self.embedding = nn.Embedding(vocab, 128, padding_idx=0)
        self.emb_norm = nn.LayerNorm(128)
        self.lstm = nn.LSTM(100, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 1)

    def forward(self, tokens: Int[Tensor, "B T"], mask: Bool[Tensor, "B T"]):
        emb = self.embedding(tokens)  # expect: [B, T, 128]
        emb = self.emb_norm(emb)  # expect: [B, T, 128]
        m = mask.unsqueeze(-1).float()  # expect: [B, T, 1]
        emb = emb * m  # expect: [B, T, 128]
        lengths = m.sum(dim=1)  # expect: [B, 1]
        bag = emb.sum(dim=1) / lengths.clamp(min=1)  # expect: [B, 128]
        drop = F.dropout(emb, 0.2, self.training)  # expect: [B, T, 128]
        first = drop[:, 0]  # expect: [B, 128]
        out, (h_n, c_n) = self.lstm(drop)  # E[SH101]
        logit = self.fc(h_n[-1]).squeeze(-1)
        return logit, bag, first
