"""A list repeated a number of times the analysis does not know (`[None] * n_layers`): each
item is one of the list's items, so a head mask taken from it is None and the attention
weights keep their shape in every layer."""
import torch


def head_masks(n: int, head_mask=None):
    if head_mask is None:
        head_mask = [None] * n
    return head_mask


def layers(x, n: int):
    masks = head_masks(n)
    for i in range(n):
        m = masks[i]
        w = x.softmax(-1)
        if m is not None:
            w = w * m
        x = x + w
    return x


def run(shape, n):
    return layers(torch.randn(*shape), n)
