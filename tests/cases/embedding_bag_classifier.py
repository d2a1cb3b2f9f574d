"""Text classifier: token embeddings, masked mean pooling, EmbeddingBag of n-gram ids, MLP head."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Bool, Int
from torch import Tensor

# entry: FastTextClassifier(); inputs: tokens=[B,T]:long, mask=[B,T]:bool, ngrams=[B,N]:long
# verify: B=2,T=12,N=5; B=7,T=3,N=1; B=1,T=40,N=9


class FastTextClassifier(nn.Module):
    def __init__(self, vocab_size=10000, ngram_buckets=5000, dim=64, num_classes=5):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, dim)
        self.ngram = nn.EmbeddingBag(ngram_buckets, dim, mode="mean")
        self.fc1 = nn.Linear(2 * dim, dim)
        self.fc2 = nn.Linear(dim, num_classes)
        self.scale = nn.Parameter(torch.ones(dim))

    def forward(self, tokens: Int[Tensor, "B T"], mask: Bool[Tensor, "B T"], ngrams: Int[Tensor, "B N"]):
        emb = self.tok(tokens)  # expect: [B, T, 64]
        m = mask.unsqueeze(-1).to(emb.dtype)  # expect: [B, T, 1]
        summed = (emb * m).sum(dim=1)  # expect: [B, 64]
        counts = m.sum(dim=1).clamp(min=1.0)  # expect: [B, 1]
        mean = summed / counts  # expect: [B, 64]
        bag = self.ngram(ngrams)  # expect: [B, 64]
        feats = torch.cat([mean * self.scale, bag], dim=-1)  # expect: [B, 128]
        hidden = F.relu(self.fc1(feats))  # expect: [B, 64]
        logits = self.fc2(hidden)  # expect: [B, 5]
        probs = F.softmax(logits, dim=-1)  # expect: [B, 5]
        entropy = -(probs * probs.clamp_min(1e-9).log()).sum(-1)  # expect: [B]
        max_pooled = emb.masked_fill(~mask.unsqueeze(-1), -1e4).max(dim=1).values  # expect: [B, 64]
        sims = F.cosine_similarity(mean, max_pooled, dim=-1)  # expect: [B]
        pairwise = mean @ mean.T  # expect: [B, B]
        return logits, entropy, sims, pairwise
