"""Shape aliases another case program imports (contract_aliases.py)."""
import torch
from jaxtyping import Float
from torch import Tensor

Image = Float[Tensor, "B 3 H W"]


def blank(batch: int, side: int) -> Image:
    img = torch.zeros(batch, 3, side, side)
    return img
