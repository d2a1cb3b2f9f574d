"""The branch-free variant of bert.py that torch.fx can trace: each `# Q3:` condition is
computed where the branchy program tests it and returned; the traced path is the one the
branchy program takes for ordinary inputs (a rank-2 mask)."""
import torch
from torch.fx.tensor_type import Dyn, TensorType

import bert


class BertModelFx(bert.BertModel):
    def forward(self, input_ids: TensorType([Dyn, Dyn])):
        b1 = input_ids.dim() != 2
        batch_size = input_ids.size(0)
        seq_length = input_ids.size(1)
        attention_mask = torch.ones((batch_size, seq_length))
        b2 = attention_mask.dim() == 3
        b3 = attention_mask.dim() == 2
        extended_attention_mask = (1.0 - attention_mask[:, None, None, :]) * -10000.0
        hidden_states = self.embeddings(input_ids)
        for layer in self.encoder:
            hidden_states = layer(hidden_states, extended_attention_mask)
        return self.pooler(hidden_states), {"b1": [b1], "b2": [b2], "b3": [b3]}
