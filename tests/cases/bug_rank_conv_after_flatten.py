"""An encoder that flattens its features for a bottleneck Linear and then applies a Conv2d to
the flat [B, N] tensor, forgetting to view it back to a 4-D map."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: Bottlenecked(); inputs: x=[B,3,32,32]
# verify: B=2; B=3


class Bottlenecked(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.squeeze = nn.Linear(16 * 16 * 16, 256)
        self.expand = nn.Linear(256, 16 * 16 * 16)
        self.refine = nn.Conv2d(16, 16, 3, padding=1)
        self.to_rgb = nn.ConvTranspose2d(16, 3, 2, stride=2)

    def forward(self, x: Float[Tensor, "B 3 32 32"]):
        B = x.shape[0]
        h = F.relu(self.enc(x))  # expect: [B, 16, 16, 16]
        flat = h.flatten(start_dim=1)  # expect: [B, 4096]
        code = torch.tanh(self.squeeze(flat))  # expect: [B, 256]
        noisy = code + 0.1 * torch.randn_like(code)  # expect: [B, 256]
        back = self.expand(noisy)  # expect: [B, 4096]
        grid = back.view(B, 16, 16, 16)  # expect: [B, 16, 16, 16]
        good = self.to_rgb(self.refine(grid))  # expect: [B, 3, 32, 32]
        err = F.mse_loss(good, x)  # expect: []
        refined = self.refine(back)  # E[SH102]
        return self.to_rgb(refined), err
