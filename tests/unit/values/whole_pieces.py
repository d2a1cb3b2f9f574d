"""Pieces of an axis concatenated again (tests/unit/test_values_whole_pieces.py): a helper that
cuts its inputs along one axis, applies a function to each piece and concatenates the results
is as long as its input there; a list that is not one item per piece is not."""
import torch


def widen(c):
    return torch.cat([c, c], -1)


def per_piece(fn, size, axis, *tensors):
    # each input cut into pieces of `size` along `axis`, `fn` applied to the pieces that line up
    if size > 0:
        count = tensors[0].shape[axis] // size
        cut = tuple(t.chunk(count, dim=axis) for t in tensors)
        done = tuple(fn(*group) for group in zip(*cut))
        return torch.cat(done, dim=axis)
    return fn(*tensors)


def through_helper(x, size: int):
    b, t, d = x.shape
    y = per_piece(widen, size, 1, x)
    return y


def mapped(x, n: int):
    b, t, d = x.shape
    y = torch.cat([widen(c) for c in x.chunk(n, 1)], 1)
    return y


def split_again(x, s: int):
    b, t, d = x.shape
    y = torch.cat(x.split(s, dim=1), dim=1)
    return y


def moved_axis(x, n: int):
    b, t, d = x.shape
    y = torch.cat([c.transpose(1, 2) for c in x.chunk(n, 1)], 2)
    return y


def first_repeated(x, n: int):
    b, t, d = x.shape
    cs = x.chunk(n, 1)
    y = torch.cat([cs[0] for _ in cs], 1)
    return y


def filtered(x, n: int):
    b, t, d = x.shape
    y = torch.cat([c for c in x.chunk(n, 1) if c.shape[1] > 1], 1)
    return y


def appended(x, n: int):
    b, t, d = x.shape
    cs = [c for c in x.chunk(n, 1)]
    cs.append(cs[0])
    y = torch.cat(cs, 1)
    return y


def doubled(x, n: int):
    b, t, d = x.shape
    y = torch.cat([torch.cat([c, c], 1) for c in x.chunk(n, 1)], 1)
    return y


def other_axis(x, n: int):
    b, t, d = x.shape
    y = torch.cat([c.transpose(1, 2) for c in x.chunk(n, 1)], 1)
    return y
