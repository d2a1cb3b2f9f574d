"""Broadcasting and the matmul family: @ with 1-D/2-D/batched operands, bmm, baddbmm, outer,
expand/repeat, unsqueeze-driven broadcasting in distance computations."""
import torch
import torch.nn.functional as F

a = torch.randn(5, 3)  # expect: [5, 3]
b = torch.randn(3, 4)  # expect: [3, 4]
v = torch.randn(3)  # expect: [3]
batch = torch.randn(7, 5, 3)  # expect: [7, 5, 3]
wide = torch.randn(2, 1, 3, 6)  # expect: [2, 1, 3, 6]

mm = a @ b  # expect: [5, 4]
mv = a @ v  # expect: [5]
vm = v @ b  # expect: [4]
dot = v @ v  # expect: []
bm = batch @ b  # expect: [7, 5, 4]
bb = torch.bmm(batch, batch.transpose(1, 2))  # expect: [7, 5, 5]
bcast = batch @ wide  # expect: [2, 7, 5, 6]
bvec = batch @ v  # expect: [7, 5]
addbb = torch.baddbmm(torch.zeros(7, 5, 5), batch, batch.mT)  # expect: [7, 5, 5]
outer = torch.outer(v, torch.arange(6.0))  # expect: [3, 6]
lin = F.linear(batch, torch.randn(8, 3), torch.randn(8))  # expect: [7, 5, 8]

col = torch.randn(4, 1)  # expect: [4, 1]
row = torch.randn(1, 6)  # expect: [1, 6]
grid = col + row  # expect: [4, 6]
scaled = batch * v  # expect: [7, 5, 3]
mixed = batch + torch.randn(7, 1, 3)  # expect: [7, 5, 3]
expanded = v.expand(5, 3)  # expect: [5, 3]
expanded4 = col.expand(-1, 9)  # expect: [4, 9]
tiled = a.repeat(2, 3)  # expect: [10, 9]
tiled3 = a.repeat(4, 1, 1)  # expect: [4, 5, 3]
inter = a.repeat_interleave(2, dim=0)  # expect: [10, 3]

# pairwise squared distances between two point sets, by broadcasting
x = torch.randn(10, 2)  # expect: [10, 2]
y = torch.randn(6, 2)  # expect: [6, 2]
diff = x[:, None, :] - y[None, :, :]  # expect: [10, 6, 2]
d2 = (diff ** 2).sum(-1)  # expect: [10, 6]
d_cdist = torch.cdist(x, y)  # expect: [10, 6]
nearest = d2.argmin(dim=1)  # expect: [10]
mask = torch.where(d2 < 1.0, d2, torch.zeros(()))  # expect: [10, 6]
tri = torch.triu(torch.ones(6, 6), diagonal=1)  # expect: [6, 6]
