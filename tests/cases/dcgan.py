"""DCGAN generator and discriminator: ConvTranspose2d from a [B, nz, 1, 1] latent up to 64x64,
strided Conv2d back down to one logit per image; BCE losses for both players."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.tensor_type import TensorType


class Generator(nn.Module):
    def __init__(self, nz=100, ngf=32):
        super().__init__()
        self.l1 = nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False)
        self.l2 = nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False)
        self.l3 = nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False)
        self.l4 = nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False)
        self.l5 = nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False)

    def forward(self, z: TensorType([16, 100, 1, 1])):
        h = F.relu(self.l1(z))  # expect: [16, 256, 4, 4]
        h = F.relu(self.l2(h))  # expect: [16, 128, 8, 8]
        h = F.relu(self.l3(h))  # expect: [16, 64, 16, 16]
        h = F.relu(self.l4(h))  # expect: [16, 32, 32, 32]
        img = torch.tanh(self.l5(h))  # expect: [16, 3, 64, 64]
        return img


class Discriminator(nn.Module):
    def __init__(self, ndf=32):
        super().__init__()
        self.c1 = nn.Conv2d(3, ndf, 4, 2, 1, bias=False)
        self.c2 = nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False)
        self.c3 = nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False)
        self.c4 = nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False)
        self.c5 = nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False)

    def forward(self, img: TensorType([16, 3, 64, 64])):
        h = F.leaky_relu(self.c1(img), 0.2)  # expect: [16, 32, 32, 32]
        h = F.leaky_relu(self.c2(h), 0.2)  # expect: [16, 64, 16, 16]
        h = F.leaky_relu(self.c3(h), 0.2)  # expect: [16, 128, 8, 8]
        h = F.leaky_relu(self.c4(h), 0.2)  # expect: [16, 256, 4, 4]
        out = self.c5(h).view(-1)  # expect: [16]
        return out


netG, netD = Generator(), Discriminator()
noise = torch.randn(16, 100, 1, 1)  # expect: [16, 100, 1, 1]
fake = netG(noise)  # expect: [16, 3, 64, 64]
real = torch.rand(16, 3, 64, 64) * 2 - 1  # expect: [16, 3, 64, 64]
d_real = netD(real)  # expect: [16]
d_fake = netD(fake.detach())  # expect: [16]
ones = torch.ones_like(d_real)  # expect: [16]
loss_d = F.binary_cross_entropy_with_logits(d_real, ones) + F.binary_cross_entropy_with_logits(d_fake, torch.zeros(16))  # expect: []
loss_g = F.binary_cross_entropy_with_logits(netD(fake), ones)  # expect: []
