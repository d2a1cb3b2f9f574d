"""A torch layer's subclass with a forward of its own that calls the layer's (issue 28):
`super().forward(ids) * self.scale` is the layer's output, scaled."""
import torch
from torch import nn


class ScaledEmbedding(nn.Embedding):
    def __init__(self, num_embeddings, embedding_dim, scale=1.0):
        super().__init__(num_embeddings, embedding_dim)
        self.scale = scale

    def forward(self, ids):
        return super().forward(ids) * self.scale


class OffsetPositions(nn.Embedding):
    def __init__(self, num_positions, embedding_dim):
        self.offset = 2
        super().__init__(num_positions + self.offset, embedding_dim)

    def forward(self, ids):
        bsz, seq_len = ids.shape[:2]
        positions = torch.arange(seq_len).expand(bsz, -1)
        return super().forward(positions + self.offset)


class DoubledLinear(nn.Linear):
    def forward(self, x):
        return super().forward(x) * 2


class Encoder(nn.Module):
    def __init__(self, vocab, d, out):
        super().__init__()
        self.tokens = ScaledEmbedding(vocab, d, scale=2.0)
        self.positions = OffsetPositions(64, d)
        self.head = DoubledLinear(d, out)

    def forward(self, ids: torch.Tensor):
        assert ids.dim() == 2
        embedded = self.tokens(ids)
        placed = embedded + self.positions(ids)
        logits = self.head(placed)
        return {"embedded": embedded, "placed": placed, "logits": logits}
