"""Kim (2014) CNN for sentence classification: embeddings transposed to channels, parallel
Conv1d with kernel sizes 3/4/5, max-over-time pooling, concatenation."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Int
from torch import Tensor

# entry: TextCNN(); inputs: tokens=[B,T]:long
# verify: B=2,T=20; B=4,T=5; B=1,T=64


class TextCNN(nn.Module):
    def __init__(self, vocab=8000, emb_dim=128, n_filters=100, num_classes=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb_dim)
        self.conv3 = nn.Conv1d(emb_dim, n_filters, kernel_size=3)
        self.conv4 = nn.Conv1d(emb_dim, n_filters, kernel_size=4)
        self.conv5 = nn.Conv1d(emb_dim, n_filters, kernel_size=5)
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(3 * n_filters, num_classes)

    def forward(self, tokens: Int[Tensor, "B T"]):
        emb = self.embedding(tokens)  # expect: [B, T, 128]
        x = emb.permute(0, 2, 1)  # expect: [B, 128, T]
        h3 = F.relu(self.conv3(x))  # expect: [B, 100, T - 2]
        h4 = F.relu(self.conv4(x))  # expect: [B, 100, T - 3]
        h5 = F.relu(self.conv5(x))  # expect: [B, 100, T - 4]
        p3 = F.max_pool1d(h3, h3.size(2)).squeeze(2)  # expect: [B, 100]
        p4 = h4.max(dim=2)[0]  # expect: [B, 100]
        p5 = torch.amax(h5, dim=-1)  # expect: [B, 100]
        cat = torch.cat([p3, p4, p5], dim=1)  # expect: [B, 300]
        cat = self.dropout(cat)  # expect: [B, 300]
        logits = self.fc(cat)  # expect: [B, 2]
        k_max = h3.topk(2, dim=2).values  # expect: [B, 100, 2]
        avg = F.adaptive_avg_pool1d(h4, 1)  # expect: [B, 100, 1]
        return logits, k_max, avg
