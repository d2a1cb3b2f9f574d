"""An XGLM-style decoder (after HuggingFace's XGLM) with its shape-dependent branches:
the causal mask only for sequences longer than 1, the position table's length check, and the
attention's size checks. The ECOOP'24 constraints (Figure 9): Tensor(x, y), x > 0, 1 < y < 2000.
Branches the benchmark asks about carry a `# Q3:` tag."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.tensor_type import Dyn, TensorType


def make_causal_mask(bsz: int, tgt_len: int):
    mask = torch.full((tgt_len, tgt_len), float("-inf"))
    mask_cond = torch.arange(mask.size(-1))
    mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)
    return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len)


class XGLMSinusoidalPositionalEmbedding(nn.Module):
    def __init__(self, num_positions: int, embedding_dim: int, padding_idx: int = 1):
        super().__init__()
        self.offset = 2
        self.padding_idx = padding_idx
        self.weights = nn.Parameter(torch.zeros(num_positions + self.offset, embedding_dim), requires_grad=False)

    def forward(self, input_ids):
        seq_len = input_ids.size(1)
        max_pos = self.padding_idx + 1 + seq_len
        if max_pos > self.weights.size(0):  # Q3: b2
            raise ValueError("sequence longer than the position table")
        positions = torch.arange(seq_len) + self.offset
        return self.weights.index_select(0, positions)


class XGLMAttention(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.scaling = self.head_dim ** -0.5
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def _shape(self, tensor, seq_len: int, bsz: int):
        return tensor.view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2).contiguous()

    def forward(self, hidden_states, attention_mask):
        bsz = hidden_states.size(0)
        tgt_len = hidden_states.size(1)
        query_states = self.q_proj(hidden_states) * self.scaling
        key_states = self._shape(self.k_proj(hidden_states), -1, bsz)
        value_states = self._shape(self.v_proj(hidden_states), -1, bsz)
        proj_shape = (bsz * self.num_heads, -1, self.head_dim)
        query_states = self._shape(query_states, tgt_len, bsz).view(*proj_shape)
        key_states = key_states.view(*proj_shape)
        value_states = value_states.view(*proj_shape)
        src_len = key_states.size(1)
        attn_weights = torch.bmm(query_states, key_states.transpose(1, 2))
        if attn_weights.size() != (bsz * self.num_heads, tgt_len, src_len):  # Q3: b3
            raise ValueError("attention weights of the wrong size")
        if attention_mask.size() != (bsz, 1, tgt_len, src_len):  # Q3: b4
            raise ValueError("attention mask of the wrong size")
        attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, src_len) + attention_mask
        attn_weights = attn_weights.view(bsz * self.num_heads, tgt_len, src_len)
        attn_weights = F.softmax(attn_weights, dim=-1)
        attn_output = torch.bmm(attn_weights, value_states)
        if attn_output.size() != (bsz * self.num_heads, tgt_len, self.head_dim):  # Q3: b5
            raise ValueError("attention output of the wrong size")
        attn_output = attn_output.view(bsz, self.num_heads, tgt_len, self.head_dim).transpose(1, 2)
        attn_output = attn_output.reshape(bsz, tgt_len, self.embed_dim)
        return self.out_proj(attn_output)


class XGLMDecoderLayer(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int, ffn_dim: int):
        super().__init__()
        self.self_attn = XGLMAttention(embed_dim, num_heads)
        self.self_attn_layer_norm = nn.LayerNorm(embed_dim)
        self.fc1 = nn.Linear(embed_dim, ffn_dim)
        self.fc2 = nn.Linear(ffn_dim, embed_dim)
        self.final_layer_norm = nn.LayerNorm(embed_dim)

    def forward(self, hidden_states, attention_mask):
        residual = hidden_states
        hidden_states = self.self_attn_layer_norm(hidden_states)
        hidden_states = self.self_attn(hidden_states, attention_mask)
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.final_layer_norm(hidden_states)
        hidden_states = F.gelu(self.fc1(hidden_states))
        hidden_states = self.fc2(hidden_states)
        return residual + hidden_states


class XGLMModel(nn.Module):
    def __init__(self, vocab_size: int = 1000, d_model: int = 64, num_heads: int = 4, ffn_dim: int = 256,
                 num_layers: int = 2, max_positions: int = 2048):
        super().__init__()
        self.embed_scale = math.sqrt(d_model)
        self.embed_tokens = nn.Embedding(vocab_size, d_model, padding_idx=1)
        self.embed_positions = XGLMSinusoidalPositionalEmbedding(max_positions, d_model, 1)
        self.layers = nn.ModuleList([XGLMDecoderLayer(d_model, num_heads, ffn_dim) for _ in range(num_layers)])
        self.layer_norm = nn.LayerNorm(d_model)

    def forward(self, input_ids: TensorType([Dyn, Dyn])):
        bsz = input_ids.size(0)
        seq_len = input_ids.size(1)
        if seq_len > 1:  # Q3: b1
            attention_mask = make_causal_mask(bsz, seq_len)
        else:
            attention_mask = torch.zeros(bsz, 1, seq_len, seq_len)
        inputs_embeds = self.embed_tokens(input_ids) * self.embed_scale
        hidden_states = inputs_embeds + self.embed_positions(input_ids)
        for layer in self.layers:
            hidden_states = layer(hidden_states, attention_mask)
        return self.layer_norm(hidden_states)
