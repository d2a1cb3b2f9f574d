"""Unpacking into the wrong number of names raises ValueError every time (SH111), and the
analysis knows each structure: an LSTM returns `(output, (h_n, c_n))`, a tensor's shape has its
rank, `chunk` gives as many pieces as asked when the size divides evenly."""
import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor

# entry: Encoder(); inputs: x=[B,T,8]
# entry: BadEncoder(); inputs: x=[B,T,8]
# entry: channels_of; inputs: x=[B,C,L]
# entry: three_heads; inputs: x=[B,T,96]
# verify: B=2,T=5,C=3,L=7; B=1,T=4,C=2,L=3


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, x: Float[Tensor, "B T 8"]):
        output, (h_n, c_n) = self.lstm(x)  # expect: output=[B, T, 16]; h_n=[1, B, 16]; c_n=[1, B, 16]
        last = h_n[-1]  # expect: [B, 16]
        logits = self.head(last)  # expect: [B, 4]
        return logits


class BadEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True)

    def forward(self, x: Float[Tensor, "B T 8"]):
        output, h_n, c_n = self.lstm(x)  # E[SH111]
        return output


def channels_of(x: Float[Tensor, "B C L"]):
    y = x * 2  # expect: [B, C, L]
    flat = y.flatten(1)  # expect: [B, C*L]
    batch, channels = y.shape  # E[SH111]
    return batch * channels


def three_heads(x: Float[Tensor, "B T 96"]):
    q, k, v = x.chunk(3, dim=-1)  # expect: q=[B, T, 32]; k=[B, T, 32]; v=[B, T, 32]
    att = q @ k.transpose(1, 2)  # expect: [B, T, T]
    mixed = att @ v  # expect: [B, T, 32]
    first, *rest = x.chunk(3, dim=-1)  # expect: first=[B, T, 32]
    q2, k2 = x.chunk(3, dim=-1)  # E[SH111]
    return mixed + q2 + k2
