"""Shape aliases another case program imports (contract_aliases.py)."""
from jaxtyping import Float
from torch import Tensor

Image = Float[Tensor, "B 3 H W"]
