"""Like uninferable.py, but its helper exists: an operation looked up at run time, which the
analysis cannot follow and none of the common input shapes passes (the run refuses)."""
import torch
import torch.nn as nn
import opaque_prep


class Mystery(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        y = opaque_prep.prepare(x)
        return self.fc(y)
