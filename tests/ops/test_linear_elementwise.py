import random

import pytest
import torch
import torch.nn.functional as F

from .diff import T, check, check_module

rng = random.Random(1)


def shapes(n, rank_lo=1, rank_hi=4):
    return [tuple(rng.randint(1, 5) for _ in range(rng.randint(rank_lo, rank_hi))) for _ in range(n)]


@pytest.mark.parametrize("s", shapes(12))
def test_linear_module(s):
    fin = rng.choice([s[-1], s[-1] + 1])
    check_module("torch.nn.Linear", torch.nn.Linear, (fin, 7), args=(T(*s),))


@pytest.mark.parametrize("a,b", list(zip(shapes(20, 0, 4), shapes(20, 0, 4))) + [((3, 1), (1, 4)), ((2, 3), (3, 2))])
def test_add_broadcast(a, b):
    check("torch.add", torch.add, (T(*a), T(*b)))


@pytest.mark.parametrize("name", ["relu", "gelu", "sigmoid", "tanh", "silu", "softplus", "elu"])
def test_unary(name):
    check(f"torch.nn.functional.{name}", getattr(F, name), (T(2, 3, 4),))
