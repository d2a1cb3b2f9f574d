import torch


def make():
    t = torch.zeros(4, 8)  # [4, 8]
    u = t.sum(0)
    v: torch.Tensor = t * 2
    return u + 1
