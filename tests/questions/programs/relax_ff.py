"""The Relax shape notes' @ff: x is [n, m*4] and the result is [n*m]; Tests A, B, C and E."""
import torch
from jaxtyping import Int8
from torch import Tensor


def ff(x: Int8[Tensor, "n m4"]):
    n, m4 = x.shape
    assert m4 % 4 == 0
    return x.reshape(n * m4 // 4, 4).sum(dim=1).to(torch.int32)


def test_a():
    a = torch.zeros(8, 16, dtype=torch.int8)
    b = ff(a)
    return b


def test_b():
    a = torch.zeros(8, 15, dtype=torch.int8)
    b = ff(a)
    return b


def test_c(a: Int8[Tensor, "k 16"]):
    b = ff(a)
    return b


def test_e(a: Int8[Tensor, "_ _"]):
    b: Int8[Tensor, "k*64"] = ff(a)
    return b
