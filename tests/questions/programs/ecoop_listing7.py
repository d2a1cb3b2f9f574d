"""ECOOP'24 Listing 7: a branch on a dimension after reshape."""
import torch
from torch.fx.tensor_type import Dyn


class ReshapeControlFlow(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: Dyn):
        if x.reshape(100).size()[0] < 100:
            return torch.dropout(x, p=0.5, train=False)
        else:
            return torch.relu(x)
