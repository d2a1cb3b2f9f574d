"""Differential tests: scans/diff/aminmax/quantile/bucketize/searchsorted and torch.fft against PyTorch (meta)."""
import random

import pytest
import torch

from shapehint.ops.concrete import ConcreteContext, OpFailed
from shapehint.ops.registry import lookup
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import IntV, TensorV

from .diff import T, check

rng = random.Random(23)


def shape(lo=0, hi=3, top=5):
    return tuple(rng.randint(1, top) for _ in range(rng.randint(lo, hi)))


@pytest.mark.parametrize("k", range(12))
def test_scans(k):
    s = shape()
    d = rng.randint(-len(s) - 1, len(s))
    check("torch.cummax", torch.cummax, (T(*s), d))
    check("Tensor.cummin", torch.Tensor.cummin, (T(*s), d))
    check("torch.logcumsumexp", torch.logcumsumexp, (T(*s), d))


@pytest.mark.parametrize("k", range(16))
def test_diff(k):
    s = shape(0, 3)
    r = max(len(s), 1)
    d = rng.randint(-r, r)
    kw = {"n": rng.choice([0, 1, 2, 5, -1]), "dim": d}
    if s and rng.random() < 0.5:
        p = list(s)
        p[d % len(s) if -len(s) <= d < len(s) else 0] = rng.randint(1, 3)
        if rng.random() < 0.2:
            p[0] += 1
        kw[rng.choice(["prepend", "append"])] = T(*(p if rng.random() < 0.9 else p[1:]))
    check("torch.diff", torch.diff, (T(*s),), kw)


@pytest.mark.parametrize("k", range(12))
def test_aminmax(k):
    s = shape(0, 3)
    if rng.random() < 0.2:
        s = s + (0,)
    kw = {"keepdim": rng.random() < 0.5}
    if rng.random() < 0.6:
        kw["dim"] = rng.randint(-len(s) - 1, max(len(s) - 1, 0))
    check("torch.aminmax", torch.aminmax, (T(*s),), kw)


@pytest.mark.parametrize("k", range(12))
def test_quantile(k):
    s = shape(1, 3)
    q = rng.choice([0.3, T(4), T(2, 2), T()])
    kw = {"keepdim": rng.random() < 0.5}
    if rng.random() < 0.6:
        kw["dim"] = rng.randint(-len(s), len(s))
    check("torch.quantile", torch.quantile, (T(*s), q), kw)
    check("torch.nanquantile", torch.nanquantile, (T(*s), q), kw)


@pytest.mark.parametrize("x,b", [((3, 4), (5,)), ((), (5,)), ((3,), (2, 5)), ((3, 4), ())])
def test_bucketize(x, b):
    # the meta kernel does not check the boundaries' rank: compare with CPU
    check("torch.bucketize", torch.bucketize, (T(*x), T(*b)), device="cpu")
    check("torch.bucketize", torch.bucketize, (T(*x), T(*b)), {"out_int32": True}, device="cpu")


@pytest.mark.parametrize("b,x", [((5,), (3, 4)), ((2, 5), (2, 4)), ((2, 5), (3, 4)), ((2, 5), (4,)), ((5,), ()),
                                 ((2, 3, 5), (2, 3, 1))])
def test_searchsorted(b, x):
    check("torch.searchsorted", torch.searchsorted, (T(*b), T(*x)))
    check("torch.searchsorted", torch.searchsorted, (T(*b), T(*x)), device="cpu")


@pytest.mark.parametrize("b", [(5,), (2, 5)])
def test_searchsorted_scalar(b):
    check("torch.searchsorted", torch.searchsorted, (T(*b), 3), device="cpu")


@pytest.mark.parametrize("k", range(24))
def test_fft_1d(k):
    s = shape(0, 3, 6)
    kw = {}
    if rng.random() < 0.6:
        kw["n"] = rng.choice([1, 2, 5, 8, 0])
    if rng.random() < 0.5:
        kw["dim"] = rng.randint(-len(s) - 1, len(s))
    for name in ("fft", "ifft", "rfft", "ihfft"):
        check(f"torch.fft.{name}", getattr(torch.fft, name), (T(*s),), kw)
    for name in ("irfft", "hfft", "fft"):
        check(f"torch.fft.{name}", getattr(torch.fft, name), (T(*s, dtype="cfloat"),), kw)
    check("torch.fft.rfft", torch.fft.rfft, (T(*s, dtype="cfloat"),), kw)


@pytest.mark.parametrize("k", range(24))
def test_fft_nd(k):
    s = shape(1, 4, 6)
    kw = {}
    r = len(s)
    if rng.random() < 0.5:
        kw["dim"] = tuple(rng.sample(range(-r, r), rng.randint(1, min(r, 3))))
        if rng.random() < 0.1:
            kw["dim"] = kw["dim"] + kw["dim"][:1]
    if rng.random() < 0.5:
        n = len(kw["dim"]) if "dim" in kw and rng.random() < 0.9 else rng.randint(1, 3)
        kw["s"] = tuple(rng.choice([-1, 1, 3, 4, 7]) for _ in range(n))
    for name in ("fftn", "rfftn", "ifftn", "ihfftn"):
        check(f"torch.fft.{name}", getattr(torch.fft, name), (T(*s),), kw)
    for name in ("irfftn", "hfftn"):
        check(f"torch.fft.{name}", getattr(torch.fft, name), (T(*s, dtype="cfloat"),), kw)
    if "dim" not in kw or len(kw["dim"]) == 2:
        for name in ("fft2", "rfft2", "ifft2"):
            check(f"torch.fft.{name}", getattr(torch.fft, name), (T(*s),), kw)
        check("torch.fft.irfft2", torch.fft.irfft2, (T(*s, dtype="cfloat"),), kw)


@pytest.mark.parametrize("n", [1, 6, 7])
def test_fft_helpers(n):
    check("torch.fft.fftfreq", lambda n: torch.fft.fftfreq(n, device="meta"), (n,))
    check("torch.fft.rfftfreq", lambda n: torch.fft.rfftfreq(n, device="meta"), (n,))
    check("torch.fft.fftshift", torch.fft.fftshift, (T(n, 3),), {"dim": 1})


def _sym(name, *args, **kw):
    return lookup(name).fn(ConcreteContext(name), *args, **kw)


def test_symbolic_scans_fft():
    B, L = Expr.sym("B"), Expr.sym("L")
    x = TensorV(Shape.of([B, L]), "float32")
    assert str(_sym("torch.cummax", x, 1).items[1].shape) == "[B, L]"
    assert str(_sym("torch.fft.rfft", x).shape) == str(Shape.of([B, L // 2 + 1]))
    assert str(_sym("torch.fft.irfft", x, n=IntV(L)).shape) == "[B, L]"
    d = _sym("torch.diff", x, dim=1)
    assert d.shape.dims[0] == B and d.shape.dims[1].symbols() == {"L"}
    with pytest.raises(OpFailed) as e:
        _sym("torch.diff", x, prepend=TensorV(Shape.of([B])))
    assert e.value.code == "SH102"
