"""Tensors Fitting Perfectly §3.8: one hole with a unique value, one unbounded."""
import torch

x = torch.randn(20, 10)
y = torch.randn(__, __)
z = torch.matmul(x, y)
