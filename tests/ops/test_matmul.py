"""Differential tests for matmul.py against PyTorch on the meta device."""
import random

import pytest
import torch

from shapehint.ops.concrete import OpFailed, apply
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import TensorV

from .diff import T, check

rng = random.Random(13)


def mm_pair():
    ra, rb = rng.randint(0, 4), rng.randint(0, 4)
    k = rng.randint(1, 4)
    batch = [rng.randint(1, 3) for _ in range(2)]
    a = [rng.choice([b, 1]) for b in batch][:max(ra - 2, 0)] + ([rng.randint(1, 4)] if ra >= 2 else []) + ([k] if ra else [])
    b = [rng.choice([b, 1, 2]) for b in batch][:max(rb - 2, 0)] + ([k] if rb else []) + ([rng.randint(1, 4)] if rb >= 2 else [])
    if rng.random() < 0.2 and a:
        a[-1] += 1
    return T(*a), T(*b)


MATMUL = [mm_pair() for _ in range(60)]


@pytest.mark.parametrize("a,b", MATMUL)
def test_matmul(a, b):
    check("torch.matmul", torch.matmul, (a, b))


@pytest.mark.parametrize("a,b", MATMUL[:10])
def test_rmatmul(a, b):
    check("Tensor.__rmatmul__", lambda x, y: y @ x, (b, a))


@pytest.mark.parametrize("name,args", [
    ("mm", (T(2, 3), T(3, 4))), ("mm", (T(2, 3), T(4, 4))), ("mm", (T(2, 3, 1), T(3, 4))),
    ("bmm", (T(5, 2, 3), T(5, 3, 4))), ("bmm", (T(5, 2, 3), T(4, 3, 4))), ("bmm", (T(5, 2, 3), T(5, 2, 4))),
    ("mv", (T(2, 3), T(3))), ("mv", (T(2, 3), T(2))), ("dot", (T(3), T(3))), ("dot", (T(3), T(4))),
    ("outer", (T(3), T(4))), ("outer", (T(3, 1), T(4))),
    ("addmm", (T(4), T(2, 3), T(3, 4))), ("addmm", (T(2, 1), T(2, 3), T(3, 4))), ("addmm", (T(3), T(2, 3), T(3, 4))),
    ("baddbmm", (T(1, 2, 4), T(5, 2, 3), T(5, 3, 4))), ("baddbmm", (T(2, 2, 4), T(5, 2, 3), T(5, 3, 4))),
    ("addbmm", (T(2, 4), T(5, 2, 3), T(5, 3, 4))), ("addmv", (T(2), T(2, 3), T(3))), ("addmv", (T(3), T(2, 3), T(3))),
    ("tensordot", (T(2, 3, 4), T(3, 4, 5), 2)), ("tensordot", (T(2, 3, 4), T(4, 3, 5), 2)),
    ("tensordot", (T(2, 3, 4), T(4, 5), ([2], [0]))), ("tensordot", (T(2, 3, 4), T(3, 2), ([0, 1], [1, 0]))),
    ("tensordot", (T(2, 3), T(5), 0)),
])
def test_products(name, args):
    check(f"torch.{name}", getattr(torch, name), args)


EINSUM = [
    ("ij,jk->ik", (T(2, 3), T(3, 4))), ("ij,jk", (T(2, 3), T(3, 4))), ("ij,jk->ik", (T(2, 3), T(4, 4))),
    ("bij,bjk->bik", (T(5, 2, 3), T(5, 3, 4))), ("...ij,...jk->...ik", (T(5, 1, 2, 3), T(4, 3, 4))),
    ("ii->i", (T(3, 3),)), ("ii", (T(3, 3),)), ("ij->", (T(2, 3),)), ("ij->ji", (T(2, 3),)),
    ("i,j->ij", (T(2), T(3))), ("bhqd,bhkd->bhqk", (T(2, 4, 5, 8), T(2, 4, 6, 8))),
    ("bhqd,bhkd->bhqk", (T(2, 4, 5, 8), T(2, 4, 6, 7))), ("ij,jk->ik", (T(2, 3, 4), T(3, 4))),
    ("i,i->i", (T(1), T(3))), ("...d,d->...", (T(2, 3, 4), T(4))), ("ab,bc->ca", (T(2, 3), T(3, 5))),
    ("ij,jk->iz", (T(2, 3), T(3, 4))), ("ij,jk->ii", (T(2, 3), T(3, 4))), ("bA,Ac", (T(2, 3), T(3, 5))),
    ("ij", (T(2, 3), T(3, 4))), ("i...", (T(2, 3, 4),)), ("...,...->...", (T(2, 1), T(3))),
    ("ijk", (T(2, 3),)), ("ba,ab", (T(2, 3), T(3, 2))),
]


@pytest.mark.parametrize("eq,ops", EINSUM)
def test_einsum(eq, ops):
    check("torch.einsum", torch.einsum, (eq,) + ops)


def test_mixed_dtype_cpu():
    # the meta kernel accepts float @ long; CPU (the real behaviour) rejects it
    with pytest.raises(RuntimeError):
        torch.mm(torch.zeros(2, 3), torch.zeros(3, 4, dtype=torch.long))
    with pytest.raises(OpFailed):
        apply("torch.mm", T(2, 3).abstract(), T(3, 4, dtype="long").abstract())


def test_einsum_list_operands():
    check("torch.einsum", torch.einsum, ("ij,jk->ik", [T(2, 3), T(3, 4)]))


def test_symbolic():
    B, Tt, C = Expr.sym("B"), Expr.sym("T"), Expr.sym("C")
    q = TensorV(Shape.of((B, 12, Tt, C // 12)), "float32")
    k = apply("Tensor.transpose", q, -2, -1)
    att = apply("Tensor.__matmul__", q, k)
    assert str(att.shape) == "[B, 12, T, T]"
    assert str(apply("torch.einsum", "bhqd,bhkd->bhqk", q, q).shape) == "[B, 12, T, T]"
    x = TensorV(Shape((), "x*", (C,)), "float32")
    assert str(apply("torch.matmul", x, TensorV(Shape.of((C, 10)), "float32")).shape) == "[*x, 10]"
