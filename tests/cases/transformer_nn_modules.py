"""Sequence models from torch.nn building blocks: TransformerEncoder for classification and
nn.Transformer for seq2seq with a generated causal mask (batch_first)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Int
from torch import Tensor

# entry: Seq2SeqTransformer(); inputs: src=[B,S]:long, tgt=[B,T]:long
# verify: B=2,S=11,T=7; B=1,S=3,T=9


class Seq2SeqTransformer(nn.Module):
    def __init__(self, vocab=500, d_model=64, nhead=4, layers=2, max_len=64):
        super().__init__()
        self.src_emb = nn.Embedding(vocab, d_model)
        self.tgt_emb = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        enc_layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=128, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc_layer, num_layers=layers)
        self.transformer = nn.Transformer(d_model, nhead, num_encoder_layers=layers, num_decoder_layers=layers,
                                          dim_feedforward=128, batch_first=True)
        self.cls = nn.Linear(d_model, 3)
        self.generator = nn.Linear(d_model, vocab)

    def forward(self, src: Int[Tensor, "B S"], tgt: Int[Tensor, "B T"]):
        B, S = src.shape
        T = tgt.shape[1]
        src_pos = torch.arange(S).unsqueeze(0).expand(B, S)  # expect: [B, S]
        s = self.src_emb(src) + self.pos(src_pos)  # expect: [B, S, 64]
        t = self.tgt_emb(tgt) + self.pos(torch.arange(T))  # expect: [B, T, 64]
        pad_mask = src == 0  # expect: [B, S]
        enc = self.encoder(s, src_key_padding_mask=pad_mask)  # expect: [B, S, 64]
        sentence = self.cls(enc.mean(dim=1))  # expect: [B, 3]
        causal = nn.Transformer.generate_square_subsequent_mask(T)  # expect: [T, T]
        dec = self.transformer(s, t, tgt_mask=causal)  # expect: [B, T, 64]
        logits = self.generator(dec)  # expect: [B, T, 500]
        loss = F.cross_entropy(logits.flatten(0, 1), tgt.flatten())  # expect: []
        return sentence, logits, loss
