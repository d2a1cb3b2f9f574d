"""Differential tests: normalisation rules against PyTorch (meta device; CPU for eval-mode layers)."""
import random

import pytest
import torch
import torch.nn.functional as F

from shapehint.ops.concrete import ConcreteContext, OpFailed, build_module, call_module
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import TensorV

from .diff import T, check, check_module
from .test_conv import cpu_check, cpu_check_module


def _x(r, lo, hi, c=None):
    dims = [r.randint(1, 4) for _ in range(r.randint(lo, hi))]
    if c is not None and len(dims) > 1:
        dims[1] = c
    return T(*dims)


@pytest.mark.parametrize("k", range(24))
def test_batch_norm_functional(k):
    r = random.Random(k)
    c = r.randint(1, 4)
    x = _x(r, 1, 5, c if r.random() < 0.8 else None)
    cpu_check("torch.nn.functional.batch_norm", F.batch_norm, (x, T(c), T(c)),
              {"weight": r.choice([None, T(c), T(c + 1)]), "training": r.random() < 0.5})


@pytest.mark.parametrize("k", range(24))
def test_batch_norm_layers(k):
    r = random.Random(100 + k)
    nsp = r.choice([1, 2, 3])
    c = r.randint(1, 4)
    x = _x(r, 1, 6, c if r.random() < 0.8 else None)
    kw = {"affine": r.random() < 0.7, "track_running_stats": r.random() < 0.7}
    # eval mode: the analysis does not know the mode, and eval accepts single-value batches
    cpu_check_module(f"torch.nn.BatchNorm{nsp}d", getattr(torch.nn, f"BatchNorm{nsp}d"), (c,), kw, (x,),
                     setup=lambda m: m.eval())


@pytest.mark.parametrize("k", range(20))
def test_instance_norm_layers(k):
    r = random.Random(200 + k)
    nsp = r.choice([1, 2, 3])
    c = r.randint(1, 4)
    x = T(*[r.randint(1, 4) if i < 2 else r.randint(2, 4) for i in range(r.randint(nsp + 1, nsp + 2) if r.random() < 0.8 else r.choice([nsp, nsp + 3]))])
    if len(x.dims) == nsp + 2 and r.random() < 0.8:
        x = T(x.dims[0], c, *x.dims[2:])
    elif len(x.dims) == nsp + 1 and r.random() < 0.8:
        x = T(c, *x.dims[1:])
    kw = {"affine": r.random() < 0.5, "track_running_stats": r.random() < 0.3}
    cpu_check_module(f"torch.nn.InstanceNorm{nsp}d", getattr(torch.nn, f"InstanceNorm{nsp}d"), (c,), kw, (x,),
                     setup=lambda m: m.eval())


@pytest.mark.parametrize("k", range(8))
def test_instance_norm_functional(k):
    r = random.Random(250 + k)
    c = r.randint(1, 3)
    x = _x(r, 1, 5, c)
    cpu_check("torch.nn.functional.instance_norm", F.instance_norm, (x,), {"weight": r.choice([None, T(c), T(c + 1)])})


@pytest.mark.parametrize("k", range(24))
def test_layer_norm(k):
    r = random.Random(300 + k)
    x = _x(r, 1, 4)
    n = r.randint(1, 2)
    ns = tuple(x.dims[-n:]) if r.random() < 0.7 else tuple(r.randint(1, 4) for _ in range(n))
    if r.random() < 0.5:
        check_module("torch.nn.LayerNorm", torch.nn.LayerNorm, (ns if len(ns) > 1 else ns[0],),
                     {"elementwise_affine": r.random() < 0.5}, (x,))
    elif r.random() < 0.5:
        check_module("torch.nn.RMSNorm", torch.nn.RMSNorm, (ns,), {}, (x,))
    else:
        w = r.choice([None, T(*ns), T(*ns, 1)])
        cpu_check("torch.nn.functional.layer_norm", F.layer_norm, (x, ns), {"weight": w})


@pytest.mark.parametrize("k", range(24))
def test_group_norm(k):
    r = random.Random(400 + k)
    g = r.choice([1, 2, 3])
    c = g * r.randint(1, 3) + (1 if r.random() < 0.2 else 0)
    x = _x(r, 1, 4, c if r.random() < 0.8 else None)
    if r.random() < 0.5:
        cpu_check("torch.nn.functional.group_norm", F.group_norm, (x, g), {"weight": r.choice([None, T(c)])})
    else:
        cpu_check_module("torch.nn.GroupNorm", torch.nn.GroupNorm, (g, c), {"affine": r.random() < 0.7}, (x,))


@pytest.mark.parametrize("k", range(10))
def test_normalize_lrn(k):
    r = random.Random(500 + k)
    x = _x(r, 1, 4)
    check("torch.nn.functional.normalize", F.normalize, (x,), {"dim": r.randint(-3, 3)})
    check_module("torch.nn.LocalResponseNorm", torch.nn.LocalResponseNorm, (2,), {}, (x,))


def test_symbolic_norm():
    B, T_, C = Expr.sym("B"), Expr.sym("T"), Expr.sym("C")
    m = build_module("torch.nn.LayerNorm", 64)
    out = call_module(ConcreteContext("ln"), m, [TensorV(Shape.of([B, T_, 64]))], {})
    assert str(out.shape) == "[B, T, 64]"
    m = build_module("torch.nn.BatchNorm2d", 16)
    with pytest.raises(OpFailed) as e:
        call_module(ConcreteContext("nn.BatchNorm2d(16)"), m, [TensorV(Shape.of([B, 8, T_, T_]))], {})
    assert "expects 16 channels" in e.value.message
    m = build_module("torch.nn.GroupNorm", 4, 32)
    out = call_module(ConcreteContext("gn"), m, [TensorV(Shape.of([B, 32, C]))], {})
    assert str(out.shape) == "[B, 32, C]"
