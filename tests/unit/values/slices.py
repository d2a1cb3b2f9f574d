"""Unpacking a slice of a shape of unknown rank (issue 28, cause 1): the path that gets past
`b, t = x.shape[:2]` has rank at least 2, and the names are the sizes of axes 0 and 1."""
import torch  # noqa: F401  (a PyTorch program: its parameters may be tensors)


def heads(x):
    batch_size, seq_length = x.shape[:2]
    q = x.reshape(batch_size, seq_length, -1)
    return {"q": q}


def tail(x):
    h, w = x.shape[-2:]
    grid = x.new_zeros(h, w)
    return {"grid": grid}


def middle(x):
    channels, height = x.size()[1:3]
    plane = x.new_zeros(channels, height)
    return {"plane": plane}


def not_understood(x, k: int):
    a, b = x.shape[k:k + 2]  # bounds the analysis does not know: nothing claimed of them
    plane = x.new_zeros(a, b)
    return {"plane": plane}
