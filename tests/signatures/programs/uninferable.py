import torch
import torch.nn as nn
import mystery_preprocessing


class Mystery(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        y = mystery_preprocessing.prepare(x)
        return self.fc(y)
