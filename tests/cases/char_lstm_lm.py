"""Character-level LSTM language model with explicit (h, c) state threaded through a loop over
time steps using nn.LSTMCell, plus the same with a stacked nn.LSTM on the whole sequence."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Int
from torch import Tensor

# entry: CharLM(); inputs: chars=[B,T]:long
# verify: B=2,T=6; B=1,T=1; B=4,T=15


class CharLM(nn.Module):
    def __init__(self, n_chars=96, emb=32, hidden=128, layers=3):
        super().__init__()
        self.embed = nn.Embedding(n_chars, emb)
        self.cell = nn.LSTMCell(emb, hidden)
        self.lstm = nn.LSTM(emb, hidden, num_layers=layers)
        self.decoder = nn.Linear(hidden, n_chars)
        self.hidden = hidden

    def forward(self, chars: Int[Tensor, "B T"]):
        B, T = chars.shape
        x = self.embed(chars)  # expect: [B, T, 32]
        h = torch.zeros(B, self.hidden)  # expect: [B, 128]
        c = torch.zeros(B, self.hidden)  # expect: [B, 128]
        outputs = []
        for t in range(T):
            h, c = self.cell(x[:, t, :], (h, c))  # expect: h=[B, 128]; c=[B, 128]
            outputs.append(self.decoder(h))
        logits = torch.stack(outputs, dim=1)  # expect: [B, T, 96]
        seq = x.permute(1, 0, 2)  # expect: [T, B, 32]
        out, (h_n, c_n) = self.lstm(seq)  # expect: out=[T, B, 128]; h_n=[3, B, 128]; c_n=[3, B, 128]
        logits2 = self.decoder(out).permute(1, 0, 2)  # expect: [B, T, 96]
        top = h_n[-1]  # expect: [B, 128]
        log_p = F.log_softmax(logits, dim=-1)  # expect: [B, T, 96]
        nll = F.nll_loss(log_p.reshape(B * T, -1), chars.reshape(B * T))  # expect: []
        return logits2, top, nll
