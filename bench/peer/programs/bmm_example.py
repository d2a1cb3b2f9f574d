"""BmmExample (ECOOP'24 §7, Figure 8): a batched matrix product whose annotations cannot fit
(x has 4 columns, y has 5 rows): the migration space is empty."""
import torch
from torch.fx.tensor_type import TensorType


class BmmExample(torch.nn.Module):
    def forward(self, x: TensorType([2, 3, 4]), y: TensorType([2, 5, 6])):
        return torch.bmm(x, y)
