"""Indexing and slicing: basic slices, None/ellipsis, integer indexing, gather, index_select."""
import torch

x = torch.randn(6, 5, 4, 3)  # expect: [6, 5, 4, 3]

first = x[0]  # expect: [5, 4, 3]
last_two = x[-2:]  # expect: [2, 5, 4, 3]
strided = x[::2]  # expect: [3, 5, 4, 3]
middle = x[1:4, 1:-1]  # expect: [3, 3, 4, 3]
col = x[:, 2]  # expect: [6, 4, 3]
point = x[1, 2, 3]  # expect: [3]
scalar = x[1, 2, 3, 0]  # expect: []
ell = x[..., 0]  # expect: [6, 5, 4]
ell_mid = x[0, ..., 1:]  # expect: [5, 4, 2]
new_axis = x[:, None]  # expect: [6, 1, 5, 4, 3]
new_last = x[..., None]  # expect: [6, 5, 4, 3, 1]
both = x[None, :, 0, None]  # expect: [1, 6, 1, 4, 3]
clipped = x[:, :100]  # expect: [6, 5, 4, 3]
empty_end = x[:, 3:2]  # expect: [6, 0, 4, 3]

idx = torch.tensor([0, 2, 4])  # expect: [3]
picked = x[idx]  # expect: [3, 5, 4, 3]
picked_dim1 = x[:, idx]  # expect: [6, 3, 4, 3]
sel = torch.index_select(x, 1, idx)  # expect: [6, 3, 4, 3]
rows = torch.tensor([0, 1, 5])  # expect: [3]
cols = torch.tensor([4, 0, 2])  # expect: [3]
pairs = x[rows, cols]  # expect: [3, 4, 3]

scores = torch.randn(8, 10)  # expect: [8, 10]
labels = torch.randint(0, 10, (8,))  # expect: [8]
gathered = scores.gather(1, labels[:, None])  # expect: [8, 1]
true_scores = scores[torch.arange(8), labels]  # expect: [8]
topv, topi = scores.topk(3, dim=-1)  # expect: topv=[8, 3]; topi=[8, 3]
sorted_vals, order = scores.sort(dim=0, descending=True)  # expect: sorted_vals=[8, 10]; order=[8, 10]
narrowed = scores.narrow(1, 2, 5)  # expect: [8, 5]
selected = scores.select(1, 0)  # expect: [8]
flipped = scores.flip(0)  # expect: [8, 10]
rolled = torch.roll(scores, shifts=2, dims=1)  # expect: [8, 10]

# index tuples built from slice objects (HF Funnel's stride_pool)
axis = 1
enc_slice = tuple([slice(None)] * axis + [slice(None, None, 2)])
strided = x[enc_slice]  # expect: [6, 3, 4, 3]
cls_slice = (slice(None),) * 2 + (slice(None, 1),)
first_cls = x[cls_slice]  # expect: [6, 5, 1, 3]
ranged = x[slice(1, 5, 2)]  # expect: [2, 5, 4, 3]
prefix = x[slice(4)]  # expect: [4, 5, 4, 3]
