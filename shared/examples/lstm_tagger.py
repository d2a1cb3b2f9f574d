"""A part-of-speech tagger: word embeddings + character CNN features -> bidirectional LSTM ->
per-token tag scores, with a padding mask and a masked token-level loss."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Bool, Int
from torch import Tensor

# entry: LSTMTagger(); inputs: words=[B,T]:long, chars=[B,T,L]:long, tags=[B,T]:long, mask=[B,T]:bool
# verify: B=2,T=7,L=5; B=4,T=1,L=12; B=1,T=20,L=3

VOCAB, CHARS, TAGS = 5000, 80, 17


class CharCNN(nn.Module):
    def __init__(self, char_dim=16, out_dim=32):
        super().__init__()
        self.embed = nn.Embedding(CHARS, char_dim, padding_idx=0)
        self.conv = nn.Conv1d(char_dim, out_dim, kernel_size=3, padding=1)

    def forward(self, chars):
        B, T, L = chars.shape
        e = self.embed(chars.view(B * T, L))  # expect: [B*T, L, 16]
        h = F.relu(self.conv(e.transpose(1, 2)))  # expect: [B*T, 32, L]
        pooled = h.max(dim=2).values  # expect: [B*T, 32]
        return pooled.view(B, T, -1)


class LSTMTagger(nn.Module):
    def __init__(self, word_dim=100, hidden=128, layers=2):
        super().__init__()
        self.word_embed = nn.Embedding(VOCAB, word_dim)
        self.char_cnn = CharCNN()
        self.lstm = nn.LSTM(word_dim + 32, hidden, num_layers=layers, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(0.3)
        self.hidden2tag = nn.Linear(2 * hidden, TAGS)

    def forward(self, words: Int[Tensor, "B T"], chars: Int[Tensor, "B T L"], tags: Int[Tensor, "B T"],
                mask: Bool[Tensor, "B T"]):
        w = self.word_embed(words)  # expect: [B, T, 100]
        c = self.char_cnn(chars)  # expect: [B, T, 32]
        x = torch.cat([w, c], dim=-1)  # expect: [B, T, 132]
        x = self.dropout(x)  # expect: [B, T, 132]
        out, (h_n, c_n) = self.lstm(x)  # expect: out=[B, T, 256]; h_n=[4, B, 128]; c_n=[4, B, 128]
        scores = self.hidden2tag(self.dropout(out))  # expect: [B, T, 17]
        log_probs = F.log_softmax(scores, dim=-1)  # expect: [B, T, 17]
        nll = -log_probs.gather(2, tags.unsqueeze(-1)).squeeze(-1)  # expect: [B, T]
        nll = nll * mask.float()  # expect: [B, T]
        loss = nll.sum() / mask.sum().clamp(min=1)  # expect: []
        predicted = scores.argmax(dim=-1)  # expect: [B, T]
        final = torch.cat([h_n[-2], h_n[-1]], dim=1)  # expect: [B, 256]
        return loss, predicted, final
