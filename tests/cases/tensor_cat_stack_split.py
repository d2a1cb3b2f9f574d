"""Joining and splitting tensors: cat, stack, split, chunk, unbind, tensor_split."""
import torch
import torch.nn as nn
import torch.nn.functional as F

a = torch.randn(4, 3, 8)  # expect: [4, 3, 8]
b = torch.randn(4, 5, 8)  # expect: [4, 5, 8]
c = torch.randn(4, 3, 8)  # expect: [4, 3, 8]

ab = torch.cat([a, b], dim=1)  # expect: [4, 8, 8]
ac_last = torch.cat((a, c), dim=-1)  # expect: [4, 3, 16]
abc = torch.cat([a, b, c], 1)  # expect: [4, 11, 8]
st0 = torch.stack([a, c])  # expect: [2, 4, 3, 8]
st2 = torch.stack([a, c], dim=2)  # expect: [4, 3, 2, 8]
stl = torch.stack((a, c), dim=-1)  # expect: [4, 3, 8, 2]

first, second = torch.split(ab, [3, 5], dim=1)  # expect: first=[4, 3, 8]; second=[4, 5, 8]
p0, p1, p2 = abc.split(4, dim=1)  # expect: p0=[4, 4, 8]; p1=[4, 4, 8]; p2=[4, 3, 8]
lo, hi = ac_last.chunk(2, dim=-1)  # expect: lo=[4, 3, 8]; hi=[4, 3, 8]
q, k, v = torch.randn(4, 10, 96).chunk(3, dim=2)  # expect: q=[4, 10, 32]; k=[4, 10, 32]; v=[4, 10, 32]
r0, r1, r2 = torch.unbind(a, dim=1)  # expect: r0=[4, 8]; r1=[4, 8]; r2=[4, 8]
t0, t1 = torch.tensor_split(b, 2, dim=1)  # expect: t0=[4, 3, 8]; t1=[4, 2, 8]

# gated linear unit: split the channel axis in halves
h = torch.randn(2, 64, 50)  # expect: [2, 64, 50]
glu_manual = h[:, :32] * torch.sigmoid(h[:, 32:])  # expect: [2, 32, 50]
glu = F.glu(h, dim=1)  # expect: [2, 32, 50]

# multi-scale features concatenated after pooling to the same size
f1 = torch.randn(2, 16, 32, 32)  # expect: [2, 16, 32, 32]
f2 = torch.randn(2, 32, 16, 16)  # expect: [2, 32, 16, 16]
f1_down = F.avg_pool2d(f1, 2)  # expect: [2, 16, 16, 16]
fused = torch.cat([f1_down, f2], dim=1)  # expect: [2, 48, 16, 16]
mixed = nn.Conv2d(48, 24, 1)(fused)  # expect: [2, 24, 16, 16]
hstacked = torch.hstack([a, b])  # expect: [4, 8, 8]
vstacked = torch.vstack([a, c])  # expect: [8, 3, 8]
