import torch
from torch import Tensor
from jaxtyping import Float


def project(x: Float[Tensor, "B 8"], w: Float[Tensor, "8 4"]):
    y = x @ w
    return y
