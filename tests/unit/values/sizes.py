"""Shapes held in variables when the input's rank is unknown (issue 28, cause 4): the sizes
around the unknown leading axes are kept, and a view of a tensor with the same leading axes
cancels them."""
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, d: int, head_dim: int):
        super().__init__()
        self.head_dim = head_dim
        self.heads = d // head_dim
        self.q = nn.Linear(d, d)

    def forward(self, hidden_states):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        q = self.q(hidden_states)
        heads = q.view(hidden_shape)
        heads2 = q.view(*hidden_shape)
        merged = heads.reshape(*input_shape, -1)
        new_shape = q.size()[:-1] + (self.heads, -1)
        split = q.view(new_shape)
        return merged, heads2, split


def upto(model, x):
    """Each value of Attention.forward by name, computed by torch."""
    input_shape = x.shape[:-1]
    q = model.q(x)
    heads = q.view(*input_shape, -1, model.head_dim)
    return {"q": q, "heads": heads, "heads2": heads, "merged": heads.reshape(*input_shape, -1),
            "split": q.view(q.size()[:-1] + (model.heads, -1))}
