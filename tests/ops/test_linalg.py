"""Differential tests: diagonals, torch.linalg and products against PyTorch on the meta device."""
import random

import pytest
import torch

from shapehint.ops.concrete import ConcreteContext, OpFailed
from shapehint.ops.registry import lookup
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import TensorV

from .diff import T, check

rng = random.Random(11)


def mat(square_bias=0.6, lo=2, hi=4):
    batch = tuple(rng.randint(1, 3) for _ in range(rng.randint(0, 2)))
    m = rng.randint(lo - 1, hi)
    n = m if rng.random() < square_bias else rng.randint(1, hi)
    return batch + (m, n)[: rng.choice([2, 2, 2, 1])] if rng.random() < 0.9 else batch + (m, n)


@pytest.mark.parametrize("k", range(16))
def test_square_functions(k):
    s = mat()
    # some meta kernels reject a 1-D input with an AssertionError: the rank check on CPU (no data involved)
    dev = "meta" if len(s) >= 2 else "cpu"
    check("torch.linalg.inv", torch.linalg.inv, (T(*s),), device=dev)
    check("torch.linalg.det", torch.linalg.det, (T(*s),), device=dev)
    check("torch.linalg.slogdet", torch.linalg.slogdet, (T(*s),), device=dev)
    check("torch.linalg.eigh", torch.linalg.eigh, (T(*s),), device=dev)
    check("torch.linalg.eigvalsh", torch.linalg.eigvalsh, (T(*s),), device=dev)
    check("torch.linalg.cholesky", torch.linalg.cholesky, (T(*s),), device=dev)
    check("torch.logdet", torch.logdet, (T(*s),), device=dev)
    check("torch.inverse", torch.inverse, (T(*s),), device=dev)
    check("torch.matrix_exp", torch.matrix_exp, (T(*s),), device=dev)
    check("torch.linalg.eig", torch.linalg.eig, (T(*s),), device=dev)
    check("torch.linalg.eigvals", torch.linalg.eigvals, (T(*s),), device=dev)
    check("torch.linalg.matrix_power", torch.linalg.matrix_power, (T(*s), rng.choice([0, 1, 3])), device=dev)


@pytest.mark.parametrize("k", range(16))
def test_rectangular_decompositions(k):
    s = mat(square_bias=0.2)
    full = rng.random() < 0.5
    check("torch.linalg.svd", torch.linalg.svd, (T(*s),), {"full_matrices": full})
    check("torch.svd", torch.svd, (T(*s),), {"some": full})
    check("torch.svd", torch.svd, (T(*s),), {"some": full, "compute_uv": False})
    check("torch.linalg.svdvals", torch.linalg.svdvals, (T(*s),))
    check("torch.linalg.pinv", torch.linalg.pinv, (T(*s),))
    check("torch.linalg.matrix_rank", torch.linalg.matrix_rank, (T(*s),))
    check("torch.linalg.qr", torch.linalg.qr, (T(*s),), {"mode": rng.choice(["reduced", "complete", "r"])})


@pytest.mark.parametrize("a,b", [((3, 3), (3,)), ((2, 3, 3), (2, 3)), ((2, 3, 3), (3, 4)), ((2, 3, 3), (5, 1, 3, 4)),
                                 ((3, 3), (4,)), ((3, 3), (4, 2)), ((3, 4), (3,)), ((2, 3, 3), (3, 3, 3)),
                                 ((2, 3, 3), (2, 4)), ((4, 2, 2), (3, 2, 1))])
def test_solve(a, b):
    check("torch.linalg.solve", torch.linalg.solve, (T(*a), T(*b)))


@pytest.mark.parametrize("k", range(20))
def test_diagonal(k):
    r = rng.randint(1, 4)
    s = tuple(rng.randint(1, 5) for _ in range(r))
    off = rng.randint(-4, 4)
    d1, d2 = rng.randint(-r, r), rng.randint(-r, r - 1)
    check("torch.diagonal", torch.diagonal, (T(*s),), {"offset": off, "dim1": d1, "dim2": d2})
    check("Tensor.diagonal", torch.Tensor.diagonal, (T(*s), off))
    check("torch.diag_embed", torch.diag_embed, (T(*s),), {"offset": off, "dim1": d1, "dim2": d2})
    check("torch.diag", torch.diag, (T(*s), off))
    check("torch.trace", torch.trace, (T(*s),))


@pytest.mark.parametrize("s,kw", [((3, 4), {}), ((3, 4, 5), {"ord": 2}), ((3, 4, 5), {"keepdim": True}),
                                  ((3, 4, 5), {"dim": (0, 2)}), ((3, 4, 5), {"dim": 1, "ord": 3}), ((4,), {"ord": 1}),
                                  ((3, 4), {"ord": "nuc", "keepdim": True}), ((3, 4, 5), {"dim": (0, 1, 2)}),
                                  ((3, 4), {"dim": 2})])
def test_linalg_norm(s, kw):
    check("torch.linalg.norm", torch.linalg.norm, (T(*s),), kw)


@pytest.mark.parametrize("a,b,dim", [((2, 3), (2, 3), -1), ((3,), (4, 3), -1), ((1, 3), (4, 3), 1), ((4, 4), (4, 4), 1),
                                     ((3, 2), (3, 2), 0), ((3, 2), (3, 2), 2), ((4, 3), (5, 3), -1)])
def test_cross(a, b, dim):
    check("torch.linalg.cross", torch.linalg.cross, (T(*a), T(*b)), {"dim": dim})
    check("torch.cross", torch.cross, (T(*a), T(*b)), {"dim": dim})


@pytest.mark.parametrize("a,b", [((4, 3, 3), (4, 3, 3)), ((4, 2, 3), (4, 2, 3)), ((2, 2), (2, 2))])
def test_cross_default_dim(a, b):
    check("torch.cross", torch.cross, (T(*a), T(*b)))


@pytest.mark.parametrize("k", range(12))
def test_kron_inner(k):
    a = tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 3)))
    b = tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 3)))
    if a and b and rng.random() < 0.5:
        b = b[:-1] + a[-1:]
    check("torch.kron", torch.kron, (T(*a), T(*b)))
    check("torch.inner", torch.inner, (T(*a), T(*b)))


@pytest.mark.parametrize("a,b,dim", [((2, 3), (4, 1, 3), -1), ((2, 3), (2, 4), -1), ((2, 3), (2, 3), 0), ((3,), (3,), 1)])
def test_vecdot(a, b, dim):
    check("torch.linalg.vecdot", torch.linalg.vecdot, (T(*a), T(*b)), {"dim": dim})


def _apply_sym(name, *args, **kw):
    return lookup(name).fn(ConcreteContext(name), *args, **kw)


def test_symbolic_linalg():
    B, N, M = Expr.sym("B"), Expr.sym("N"), Expr.sym("M")
    a = TensorV(Shape.of([B, N, N]))
    assert str(_apply_sym("torch.linalg.inv", a).shape) == "[B, N, N]"
    assert str(_apply_sym("torch.linalg.det", a).shape) == "[B]"
    u, s, vh = _apply_sym("torch.linalg.svd", TensorV(Shape.of([B, N, M])), full_matrices=False).items
    assert s.shape.rank == 2 and s.shape.dims[0] == B
    assert u.shape.dims[:2] == (B, N) and vh.shape.dims[2] == M
    assert str(_apply_sym("torch.linalg.solve", a, TensorV(Shape.of([B, N]))).shape) == "[B, N]"
    assert str(_apply_sym("torch.kron", TensorV(Shape.of([N])), TensorV(Shape.of([M]))).shape) in ("[N*M]", "[M*N]")
    with pytest.raises(OpFailed) as e:
        _apply_sym("torch.linalg.inv", TensorV(Shape.of([B, 3, 4])))
    assert "3 by 4" in e.value.message and e.value.code == "SH101"
