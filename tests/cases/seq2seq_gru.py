"""Seq2seq with a bidirectional GRU encoder, dot attention and a GRUCell decoder loop."""
import torch
import torch.nn as nn
import torch.nn.functional as F

SRC_VOCAB, TGT_VOCAB, EMB, HID = 1000, 800, 64, 128


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(SRC_VOCAB, EMB)
        self.rnn = nn.GRU(EMB, HID, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * HID, HID)

    def forward(self, src):
        B, S = src.shape
        emb = self.embed(src)  # expect: [B, S, 64]
        outputs, h_n = self.rnn(emb)  # expect: outputs=[B, S, 256]; h_n=[2, B, 128]
        h_cat = torch.cat([h_n[0], h_n[1]], dim=-1)  # expect: [B, 256]
        h0 = torch.tanh(self.bridge(h_cat))  # expect: [B, 128]
        keys = self.bridge(outputs)  # expect: [B, S, 128]
        return keys, h0


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(TGT_VOCAB, EMB)
        self.cell = nn.GRUCell(EMB + HID, HID)
        self.out = nn.Linear(2 * HID, TGT_VOCAB)

    def forward(self, tgt, keys, h):
        B, T = tgt.shape
        _, S, _ = keys.shape
        emb = self.embed(tgt)  # expect: [B, T, 64]
        ctx = torch.zeros(B, HID)  # expect: [B, 128]
        logits = []
        for t in range(T):
            inp = torch.cat([emb[:, t], ctx], dim=1)  # expect: [B, 192]
            h = self.cell(inp, h)  # expect: [B, 128]
            scores = torch.bmm(keys, h.unsqueeze(2)).squeeze(2)  # expect: [B, S]
            alpha = F.softmax(scores, dim=1)  # expect: [B, S]
            ctx = (alpha.unsqueeze(2) * keys).sum(dim=1)  # expect: [B, 128]
            logits.append(self.out(torch.cat([h, ctx], dim=1)))
        stacked = torch.stack(logits, dim=1)  # expect: [B, T, 800]
        return stacked


enc, dec = Encoder(), Decoder()
src = torch.randint(0, SRC_VOCAB, (4, 13))  # expect: [4, 13]
tgt = torch.randint(0, TGT_VOCAB, (4, 9))  # expect: [4, 9]
keys, h0 = enc(src)  # expect: keys=[4, 13, 128]; h0=[4, 128]
out = dec(tgt, keys, h0)  # expect: [4, 9, 800]
loss = F.cross_entropy(out.reshape(-1, TGT_VOCAB), tgt.reshape(-1))  # expect: []
