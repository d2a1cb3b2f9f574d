"""Convolutional autoencoder: strided convs down, ConvTranspose2d with output_padding up."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.tensor_type import TensorType


class ConvAutoencoder(nn.Module):
    def __init__(self, latent_dim=32):
        super().__init__()
        self.enc1 = nn.Conv2d(1, 16, 3, stride=2, padding=1)
        self.enc2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.enc3 = nn.Conv2d(32, 64, 7)
        self.to_latent = nn.Linear(64, latent_dim)
        self.from_latent = nn.Linear(latent_dim, 64)
        self.dec1 = nn.ConvTranspose2d(64, 32, 7)
        self.dec2 = nn.ConvTranspose2d(32, 16, 3, stride=2, padding=1, output_padding=1)
        self.dec3 = nn.ConvTranspose2d(16, 1, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x: TensorType((16, 1, 28, 28))):
        e1 = F.relu(self.enc1(x))  # expect: [16, 16, 14, 14]
        e2 = F.relu(self.enc2(e1))  # expect: [16, 32, 7, 7]
        e3 = self.enc3(e2)  # expect: [16, 64, 1, 1]
        z = self.to_latent(e3.view(16, 64))  # expect: [16, 32]
        h = self.from_latent(z)  # expect: [16, 64]
        h = h.view(-1, 64, 1, 1)  # expect: [16, 64, 1, 1]
        d1 = F.relu(self.dec1(h))  # expect: [16, 32, 7, 7]
        d2 = F.relu(self.dec2(d1))  # expect: [16, 16, 14, 14]
        recon = torch.sigmoid(self.dec3(d2))  # expect: [16, 1, 28, 28]
        return recon, z


ae = ConvAutoencoder()
batch = torch.rand(16, 1, 28, 28)  # expect: [16, 1, 28, 28]
recon, code = ae(batch)  # expect: recon=[16, 1, 28, 28]; code=[16, 32]
bce = F.binary_cross_entropy(recon, batch)  # expect: []
per_image = F.mse_loss(recon, batch, reduction="none").flatten(1).sum(1)  # expect: [16]
no_pad = nn.ConvTranspose2d(16, 8, 3, stride=2)(torch.randn(2, 16, 7, 7))  # expect: [2, 8, 15, 15]
dil = nn.ConvTranspose2d(8, 4, 3, stride=1, dilation=2)(no_pad)  # expect: [2, 4, 19, 19]
codes_sim = code @ code.t()  # expect: [16, 16]
