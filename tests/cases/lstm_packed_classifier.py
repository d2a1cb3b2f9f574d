"""Text classifier over variable-length sequences (lengths counted from the padding): embeddings packed, a
bidirectional 2-layer LSTM on the packed sequence, padded back, and the last layer's two final
hidden states concatenated with an attention pooling of the
padded outputs (masked past each length) for the classifier."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

# entry: PackedClassifier(1000); inputs: text=[B,T]:long
# verify: B=2,T=7; B=4,T=3; B=1,T=5


class PackedClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim=32, hidden_dim=48, num_classes=5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, num_layers=2, bidirectional=True, batch_first=True)
        self.attn = nn.Linear(2 * hidden_dim, 1)
        self.fc = nn.Linear(4 * hidden_dim, num_classes)

    def forward(self, text):
        B, T = text.shape
        lengths = (text != 0).sum(dim=1).clamp(min=1)  # expect: [B]
        embedded = self.embedding(text)  # expect: [B, T, 32]
        packed = pack_padded_sequence(embedded, lengths.cpu(), batch_first=True, enforce_sorted=False)
        packed_out, (hidden, cell) = self.lstm(packed)  # expect: hidden=[4, B, 48]; cell=[4, B, 48]
        output, out_lengths = pad_packed_sequence(packed_out, batch_first=True, total_length=T)  # expect: output=[B, T, 96]; out_lengths=[B]
        scores = self.attn(output).squeeze(-1)  # expect: [B, T]
        mask = torch.arange(T)[None, :] < lengths[:, None]  # expect: [B, T]
        scores = scores.masked_fill(~mask, float("-inf"))  # expect: [B, T]
        weights = torch.softmax(scores, dim=1)  # expect: [B, T]
        pooled = torch.bmm(weights.unsqueeze(1), output).squeeze(1)  # expect: [B, 96]
        final = torch.cat((hidden[-2], hidden[-1], pooled), dim=1)  # expect: [B, 192]
        return self.fc(final)
