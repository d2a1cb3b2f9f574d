"""Named-entity tagger: embeddings -> 2-layer bidirectional GRU -> linear emission scores, packed
sequences avoided; the final hidden states feed a sentence-level classifier as well."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Int
from torch import Tensor

# entry: NERTagger(); inputs: tokens=[B,T]:long, labels=[B,T]:long
# verify: B=2,T=9; B=5,T=1; B=1,T=30


class NERTagger(nn.Module):
    def __init__(self, vocab=2000, emb=50, hidden=64, num_tags=9, num_intents=4):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb, padding_idx=0)
        self.gru = nn.GRU(emb, hidden, num_layers=2, batch_first=True, bidirectional=True, dropout=0.1)
        self.emissions = nn.Linear(2 * hidden, num_tags)
        self.intent = nn.Linear(2 * hidden, num_intents)
        self.lstm = nn.LSTM(emb, hidden)

    def forward(self, tokens: Int[Tensor, "B T"], labels: Int[Tensor, "B T"]):
        B, T = tokens.shape
        emb = self.embedding(tokens)  # expect: [B, T, 50]
        output, h_n = self.gru(emb)  # expect: output=[B, T, 128]; h_n=[4, B, 64]
        scores = self.emissions(output)  # expect: [B, T, 9]
        fwd_last = h_n[-2]  # expect: [B, 64]
        bwd_last = h_n[-1]  # expect: [B, 64]
        sentence = torch.cat([fwd_last, bwd_last], dim=-1)  # expect: [B, 128]
        intent_logits = self.intent(sentence)  # expect: [B, 4]
        tag_loss = F.cross_entropy(scores.transpose(1, 2), labels)  # expect: []
        time_major = emb.transpose(0, 1)  # expect: [T, B, 50]
        seq_out, (h, c) = self.lstm(time_major)  # expect: seq_out=[T, B, 64]; h=[1, B, 64]; c=[1, B, 64]
        h0 = torch.zeros(4, B, 64)  # expect: [4, B, 64]
        again, h_again = self.gru(emb, h0)  # expect: again=[B, T, 128]; h_again=[4, B, 64]
        best_tags = scores.argmax(-1)  # expect: [B, T]
        return tag_loss, intent_logits, best_tags, seq_out
