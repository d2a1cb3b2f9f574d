"""Optional inputs, caches and registered buffers (issue 28, causes 7 and 8): the model takes
either token ids or their embeddings (one of them must be given), an optional mask and an
optional cache; positions come from a registered buffer sliced past the cached length."""
import torch
from torch import nn


class Embeddings(nn.Module):
    def __init__(self, vocab: int, d: int, max_len: int):
        super().__init__()
        self.tokens = nn.Embedding(vocab, d)
        self.positions = nn.Embedding(max_len, d)
        self.norm = nn.LayerNorm(d)
        self.register_buffer("position_ids", torch.arange(max_len).expand((1, -1)), persistent=False)
        self.register_buffer("segment_ids", torch.zeros(self.position_ids.size(), dtype=torch.long),
                             persistent=False)

    def forward(self, input_ids=None, position_ids=None, inputs_embeds=None, past_length: int = 0):
        if input_ids is not None:
            input_shape = input_ids.size()
        else:
            input_shape = inputs_embeds.size()[:-1]
        seq_length = input_shape[1]
        if position_ids is None:
            position_ids = self.position_ids[:, past_length: seq_length + past_length]
        if inputs_embeds is None:
            inputs_embeds = self.tokens(input_ids)
        pos = self.positions(position_ids)
        emb = inputs_embeds + pos
        emb = self.norm(emb)
        return emb


class Model(nn.Module):
    def __init__(self, vocab: int, d: int, max_len: int):
        super().__init__()
        self.embeddings = Embeddings(vocab, d, max_len)
        self.head = nn.Linear(d, vocab)

    def forward(self, input_ids=None, attention_mask=None, segment_ids=None, inputs_embeds=None,
                past_key_values=None):
        if input_ids is not None and inputs_embeds is not None:
            raise ValueError("give input_ids or inputs_embeds, not both")
        elif input_ids is not None:
            input_shape = input_ids.size()
        elif inputs_embeds is not None:
            input_shape = inputs_embeds.size()[:-1]
        else:
            raise ValueError("give input_ids or inputs_embeds")
        batch_size, seq_length = input_shape
        past_length = 0
        if past_key_values is not None:
            past_length = past_key_values[0][0].shape[-2]
        if segment_ids is None:
            buffered = self.embeddings.segment_ids[:, :seq_length]
            segment_ids = buffered.expand(batch_size, seq_length)
        if attention_mask is None:
            attention_mask = torch.ones((batch_size, seq_length + past_length))
        hidden = self.embeddings(input_ids=input_ids, inputs_embeds=inputs_embeds, past_length=past_length)
        logits = self.head(hidden)
        return logits, attention_mask, segment_ids


def run(model, input_ids):
    """Each value of Model.forward and Embeddings.forward by name, computed by torch (the path
    the model takes for `model(input_ids)`)."""
    batch_size, seq_length = input_ids.size()
    buffered = model.embeddings.segment_ids[:, :seq_length]
    emb = model.embeddings
    position_ids = emb.position_ids[:, 0:seq_length]
    inputs_embeds = emb.tokens(input_ids)
    pos = emb.positions(position_ids)
    hidden = emb.norm(inputs_embeds + pos)
    return {"Model.forward": {"buffered": buffered, "segment_ids": buffered.expand(batch_size, seq_length),
                              "attention_mask": torch.ones((batch_size, seq_length)), "hidden": hidden,
                              "logits": model.head(hidden)},
            "Embeddings.forward": {"position_ids": position_ids, "inputs_embeds": inputs_embeds, "pos": pos,
                                   "emb": hidden}}
