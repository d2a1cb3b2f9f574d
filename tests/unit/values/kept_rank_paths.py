"""A helper whose own analysis loses its result's rank, called on two paths: through one the
analysis follows every operand, through the other (an object of another class) it loses the keys
(tests/unit/test_values_kept_rank_paths.py; analysis/sink.py `_value`)."""
import importlib

import torch


class SelfAttention:
    pass


class CrossAttention:
    pass


def scores(module, query, key):
    w = torch.matmul(query, key.transpose(-1, -2))
    return torch.softmax(w, dim=-1)


def self_attention(x: "Tensor[B, T, 64]"):
    b, t, c = x.shape
    q = x.view(b, t, 4, 16).transpose(1, 2)
    return scores(SelfAttention(), q, q)


def cross_attention(x: "Tensor[B, T, 64]", memory):
    b, t, c = x.shape
    q = x.view(b, t, 4, 16).transpose(1, 2)
    k = importlib.import_module("torch").clone(memory)  # (found at run time: not followed)
    return scores(CrossAttention(), q, k)
