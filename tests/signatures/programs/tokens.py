import torch
import torch.nn as nn


class TinyLM(nn.Module):
    def __init__(self, vocab=1000, dim=64, heads=4, max_len=128):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 128, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.out = nn.Linear(dim, vocab)

    def forward(self, ids):
        T = ids.shape[1]
        pos = torch.arange(T)
        h = self.tok(ids) + self.pos(pos)
        h = self.enc(h)
        return self.out(h)
