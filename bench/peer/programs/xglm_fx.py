"""The branch-free variant of xglm.py that torch.fx can trace: every `# Q3:` condition is
computed (same expression, same place) and returned instead of branched on; the traced code
follows the path the branchy program takes for ordinary inputs (causal mask, no raise).
Returns (output, {tag: [condition node, ...]}) -- one node per executed instance."""
import torch
import torch.nn.functional as F
from torch.fx.tensor_type import Dyn, TensorType

import xglm
from xglm import make_causal_mask


class PositionalFx(xglm.XGLMSinusoidalPositionalEmbedding):
    def forward(self, input_ids):
        seq_len = input_ids.size(1)
        max_pos = self.padding_idx + 1 + seq_len
        b2 = max_pos > self.weights.size(0)
        positions = torch.arange(seq_len) + self.offset
        return self.weights.index_select(0, positions), b2


class AttentionFx(xglm.XGLMAttention):
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
        b3 = attn_weights.size() != (bsz * self.num_heads, tgt_len, src_len)
        b4 = attention_mask.size() != (bsz, 1, tgt_len, src_len)
        attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, src_len) + attention_mask
        attn_weights = attn_weights.view(bsz * self.num_heads, tgt_len, src_len)
        attn_weights = F.softmax(attn_weights, dim=-1)
        attn_output = torch.bmm(attn_weights, value_states)
        b5 = attn_output.size() != (bsz * self.num_heads, tgt_len, self.head_dim)
        attn_output = attn_output.view(bsz, self.num_heads, tgt_len, self.head_dim).transpose(1, 2)
        attn_output = attn_output.reshape(bsz, tgt_len, self.embed_dim)
        return self.out_proj(attn_output), (b3, b4, b5)


class LayerFx(xglm.XGLMDecoderLayer):
    def forward(self, hidden_states, attention_mask):
        residual = hidden_states
        hidden_states = self.self_attn_layer_norm(hidden_states)
        hidden_states, conds = self.self_attn(hidden_states, attention_mask)
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.final_layer_norm(hidden_states)
        hidden_states = F.gelu(self.fc1(hidden_states))
        hidden_states = self.fc2(hidden_states)
        return residual + hidden_states, conds


class XGLMModelFx(xglm.XGLMModel):
    def __init__(self):
        super().__init__()
        d, h, f = 64, 4, 256
        self.embed_positions = PositionalFx(2048, d, 1)
        self.layers = torch.nn.ModuleList([LayerFx(d, h, f) for _ in range(len(self.layers))])
        for layer in self.layers:
            layer.self_attn = AttentionFx(d, h)

    def forward(self, input_ids: TensorType([Dyn, Dyn])):
        bsz = input_ids.size(0)
        seq_len = input_ids.size(1)
        b1 = seq_len > 1
        attention_mask = make_causal_mask(bsz, seq_len)
        inputs_embeds = self.embed_tokens(input_ids) * self.embed_scale
        positions, b2 = self.embed_positions(input_ids)
        hidden_states = inputs_embeds + positions
        conds = {"b1": [b1], "b2": [b2], "b3": [], "b4": [], "b5": []}
        for layer in self.layers:
            hidden_states, (b3, b4, b5) = layer(hidden_states, attention_mask)
            conds["b3"].append(b3)
            conds["b4"].append(b4)
            conds["b5"].append(b5)
        return self.layer_norm(hidden_states), conds
