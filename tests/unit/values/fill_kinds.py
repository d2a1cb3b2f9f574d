"""A tensor filled with a configuration value whose kind (int or float) the generic analysis does
not know, then used as embedding indices: torch gives int64 for an int fill (no error)."""
import torch
import torch.nn as nn


class Cfg:
    def __init__(self, vocab_size=1028, num_channels=9, hidden_size=16, bos_token_id=1026):
        self.vocab_size = vocab_size
        self.num_channels = num_channels
        self.hidden_size = hidden_size
        self.bos_token_id = bos_token_id


class Emb(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed = nn.Embedding(config.vocab_size * config.num_channels, config.hidden_size)
        offsets = torch.arange(config.num_channels, dtype=torch.long) * config.vocab_size
        self.register_buffer("offsets", offsets, persistent=False)

    def forward(self, audio_codes):
        tokens = (audio_codes + self.offsets).squeeze(1)
        return self.embed(tokens)


class M(nn.Module):
    def __init__(self, config: Cfg):
        super().__init__()
        self.config = config
        self.emb = Emb(config)

    def forward(self, n: int):
        ids = torch.full(size=(n, 1, 9), fill_value=self.config.bos_token_id)
        return self.emb(ids)


def build():
    return M(Cfg())
