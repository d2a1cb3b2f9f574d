"""Variational autoencoder on flattened 28x28 images: encoder to (mu, logvar) via chunk,
reparameterisation, Bernoulli decoder, per-sample ELBO terms."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

# entry: VAE(); inputs: x=[B,1,28,28]
# verify: B=2; B=9; B=1


class VAE(nn.Module):
    def __init__(self, hidden=400, latent=20):
        super().__init__()
        self.enc = nn.Linear(784, hidden)
        self.to_stats = nn.Linear(hidden, 2 * latent)
        self.dec1 = nn.Linear(latent, hidden)
        self.dec2 = nn.Linear(hidden, 784)

    def encode(self, flat):
        B, _ = flat.shape
        h = F.relu(self.enc(flat))  # expect: [B, 400]
        mu, logvar = self.to_stats(h).chunk(2, dim=-1)  # expect: mu=[B, 20]; logvar=[B, 20]
        return mu, logvar

    def decode(self, z):
        B, _ = z.shape
        h = F.relu(self.dec1(z))  # expect: [B, 400]
        logits = self.dec2(h)  # expect: [B, 784]
        return logits

    def forward(self, x: Float[Tensor, "B 1 28 28"]):
        flat = x.view(-1, 784)  # expect: [B, 784]
        mu, logvar = self.encode(flat)  # expect: mu=[B, 20]; logvar=[B, 20]
        std = torch.exp(0.5 * logvar)  # expect: [B, 20]
        eps = torch.randn_like(std)  # expect: [B, 20]
        z = mu + eps * std  # expect: [B, 20]
        logits = self.decode(z)  # expect: [B, 784]
        recon = torch.sigmoid(logits).view(-1, 1, 28, 28)  # expect: [B, 1, 28, 28]
        target = flat.clamp(0, 1)  # expect: [B, 784]
        bce = F.binary_cross_entropy_with_logits(logits, target, reduction="none").sum(dim=1)  # expect: [B]
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)  # expect: [B]
        elbo = (bce + kld).mean()  # expect: []
        samples = self.decode(torch.randn(16, 20))  # expect: [16, 784]
        return recon, elbo, samples
