"""A BERT-style encoder (after HuggingFace's BertModel) with its shape-dependent branches:
input validation and `get_extended_attention_mask`'s rank test of the attention mask.
Branches the benchmark asks about carry a `# Q3:` tag."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.tensor_type import Dyn, TensorType


class BertEmbeddings(nn.Module):
    def __init__(self, vocab_size: int, hidden_size: int, max_position_embeddings: int, type_vocab_size: int = 2):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size, padding_idx=0)
        self.position_embeddings = nn.Embedding(max_position_embeddings, hidden_size)
        self.token_type_embeddings = nn.Embedding(type_vocab_size, hidden_size)
        self.LayerNorm = nn.LayerNorm(hidden_size, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, input_ids):
        seq_length = input_ids.size(1)
        position_ids = torch.arange(seq_length)
        token_type_ids = torch.zeros_like(input_ids)
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        embeddings = embeddings + self.position_embeddings(position_ids)
        embeddings = self.LayerNorm(embeddings)
        return self.dropout(embeddings)


class BertSelfAttention(nn.Module):
    def __init__(self, hidden_size: int, num_attention_heads: int):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.attention_head_size = hidden_size // num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(hidden_size, self.all_head_size)
        self.key = nn.Linear(hidden_size, self.all_head_size)
        self.value = nn.Linear(hidden_size, self.all_head_size)
        self.dropout = nn.Dropout(0.1)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(new_x_shape)
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        attention_scores = attention_scores + attention_mask
        attention_probs = self.dropout(F.softmax(attention_scores, dim=-1))
        context_layer = torch.matmul(attention_probs, value_layer)
        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        new_context_layer_shape = context_layer.size()[:-2] + (self.all_head_size,)
        return context_layer.view(new_context_layer_shape)


class BertLayer(nn.Module):
    def __init__(self, hidden_size: int, num_attention_heads: int, intermediate_size: int):
        super().__init__()
        self.attention = BertSelfAttention(hidden_size, num_attention_heads)
        self.attention_output = nn.Linear(hidden_size, hidden_size)
        self.attention_norm = nn.LayerNorm(hidden_size, eps=1e-12)
        self.intermediate = nn.Linear(hidden_size, intermediate_size)
        self.output = nn.Linear(intermediate_size, hidden_size)
        self.output_norm = nn.LayerNorm(hidden_size, eps=1e-12)

    def forward(self, hidden_states, attention_mask):
        attn = self.attention_output(self.attention(hidden_states, attention_mask))
        hidden_states = self.attention_norm(attn + hidden_states)
        inter = F.gelu(self.intermediate(hidden_states))
        return self.output_norm(self.output(inter) + hidden_states)


class BertPooler(nn.Module):
    def __init__(self, hidden_size: int):
        super().__init__()
        self.dense = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states):
        first_token_tensor = hidden_states[:, 0]
        return torch.tanh(self.dense(first_token_tensor))


class BertModel(nn.Module):
    def __init__(self, vocab_size: int = 1000, hidden_size: int = 128, num_layers: int = 2,
                 num_attention_heads: int = 4, intermediate_size: int = 512, max_position_embeddings: int = 512):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab_size, hidden_size, max_position_embeddings)
        self.encoder = nn.ModuleList([BertLayer(hidden_size, num_attention_heads, intermediate_size)
                                      for _ in range(num_layers)])
        self.pooler = BertPooler(hidden_size)

    def get_extended_attention_mask(self, attention_mask):
        if attention_mask.dim() == 3:  # Q3: b2
            extended_attention_mask = attention_mask[:, None, :, :]
        elif attention_mask.dim() == 2:  # Q3: b3
            extended_attention_mask = attention_mask[:, None, None, :]
        else:
            raise ValueError("Wrong shape for attention_mask")
        return (1.0 - extended_attention_mask) * -10000.0

    def forward(self, input_ids: TensorType([Dyn, Dyn])):
        if input_ids.dim() != 2:  # Q3: b1
            raise ValueError("input_ids must be [batch, sequence]")
        batch_size = input_ids.size(0)
        seq_length = input_ids.size(1)
        attention_mask = torch.ones((batch_size, seq_length))
        extended_attention_mask = self.get_extended_attention_mask(attention_mask)
        hidden_states = self.embeddings(input_ids)
        for layer in self.encoder:
            hidden_states = layer(hidden_states, extended_attention_mask)
        return self.pooler(hidden_states)
