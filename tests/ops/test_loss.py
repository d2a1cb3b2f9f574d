"""Differential tests: loss rules against PyTorch (CPU with valid class indices: meta skips some checks)."""
import random
import warnings

import pytest
import torch
import torch.nn.functional as F

from shapehint.ops.concrete import ConcreteContext, apply
from shapehint.ops.registry import lookup
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import TensorV

from .diff import T, check
from .test_conv import cpu_check, cpu_check_module

warnings.filterwarnings("ignore", message="Using a target size")


def _ce_case(k):
    r = random.Random(k)
    rank = r.choice([1, 2, 2, 3, 4])
    d = [r.randint(1, 4) for _ in range(rank)]
    if r.random() < 0.5:  # class indices
        t = [d[0]] + d[2:] if rank >= 2 else []
        if r.random() < 0.2 and t:
            t[r.randrange(len(t))] += 1
        elif r.random() < 0.1:
            t = t + [2]
        target = T(*t, dtype="long")
    else:
        t = list(d)
        if r.random() < 0.2:
            t[-1] += 1
        target = T(*t)
    kw = {"reduction": r.choice(["none", "mean", "sum", "none", "avg"])}
    if r.random() < 0.2:
        c = d[1] if rank >= 2 else d[0]
        kw["weight"] = T(r.choice([c, c + 1]))
    return r, T(*d), target, kw


@pytest.mark.parametrize("k", range(40))
def test_cross_entropy(k):
    r, x, t, kw = _ce_case(k)
    if r.random() < 0.2:
        kw["label_smoothing"] = r.choice([0.1, 1.5])
    cpu_check("torch.nn.functional.cross_entropy", F.cross_entropy, (x, t), kw)


@pytest.mark.parametrize("k", range(20))
def test_nll_loss(k):
    r, x, t, kw = _ce_case(100 + k)
    cpu_check("torch.nn.functional.nll_loss", F.nll_loss, (x, t), kw)


@pytest.mark.parametrize("k", range(20))
def test_loss_layers_ce(k):
    r, x, t, kw = _ce_case(200 + k)
    name = r.choice(["CrossEntropyLoss", "NLLLoss"])
    cpu_check_module(f"torch.nn.{name}", getattr(torch.nn, name), (), kw, (x, t))


def _pair(r):
    a = [r.randint(1, 4) for _ in range(r.randint(0, 3))]
    b = list(a)
    roll = r.random()
    if roll < 0.2 and b:
        b[r.randrange(len(b))] = 1
    elif roll < 0.35:
        b = b + [1]
    elif roll < 0.45 and b:
        b = b[1:]
    elif roll < 0.55 and b:
        b[-1] += 1
    return T(*a), T(*b)


@pytest.mark.parametrize("k", range(40))
def test_regression(k):
    r = random.Random(300 + k)
    x, t = _pair(r)
    name = r.choice(["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div"])
    red = r.choice(["none", "mean", "sum", "none"] + (["batchmean"] if name == "kl_div" else []))
    check(f"torch.nn.functional.{name}", getattr(F, name), (x, t), {"reduction": red})


@pytest.mark.parametrize("k", range(20))
def test_bce(k):
    r = random.Random(400 + k)
    x, t = _pair(r)
    kw = {"reduction": r.choice(["none", "mean", "sum"])}
    if r.random() < 0.4:
        kw["weight"] = T(*[r.choice([1, d]) for d in x.dims]) if r.random() < 0.7 else T(3, *x.dims)
    name = r.choice(["binary_cross_entropy", "binary_cross_entropy_with_logits"])
    if name.endswith("logits") and r.random() < 0.3:
        kw["pos_weight"] = T(*x.dims[-1:])
    # CPU: values must be in [0, 1] for BCE, zeros are
    cpu_check(f"torch.nn.functional.{name}", getattr(F, name), (x, t), kw)


@pytest.mark.parametrize("k", range(20))
def test_regression_layers(k):
    r = random.Random(500 + k)
    x, t = _pair(r)
    name = r.choice(["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
                     "SoftMarginLoss"])
    cpu_check_module(f"torch.nn.{name}", getattr(torch.nn, name), (), {"reduction": r.choice(["none", "sum"])},
                     (x, t))


@pytest.mark.parametrize("k", range(16))
def test_ranking_losses(k):
    r = random.Random(600 + k)
    n, d = r.randint(1, 4), r.randint(1, 4)
    a = r.choice([T(n, d), T(d), T(1, d)])
    b = r.choice([a, T(n, d), T(d)])
    t = r.choice([T(n), T(), T(1), T(n + 1)])
    red = r.choice(["none", "mean"])
    cpu_check("torch.nn.functional.cosine_embedding_loss", F.cosine_embedding_loss, (a, b, t), {"reduction": red})
    cpu_check_module("torch.nn.MarginRankingLoss", torch.nn.MarginRankingLoss, (), {"reduction": red},
                     (T(*a.dims[:1]), T(*b.dims[:1]), t))


def test_legacy_reduction():
    check("torch.nn.functional.mse_loss", F.mse_loss, (T(3, 4), T(3, 4)), {"reduce": False})
    check("torch.nn.functional.mse_loss", F.mse_loss, (T(3, 4), T(3, 4)), {"size_average": False})


def test_broadcast_warning():
    from shapehint.ops.concrete import wrap
    cx = ConcreteContext("F.mse_loss(pred, y)")
    out = lookup("torch.nn.functional.mse_loss").fn(cx, TensorV(Shape.of([Expr.sym("B"), 1])),
                                                      TensorV(Shape.of([Expr.sym("B")])), reduction=wrap("none"))
    assert cx.warnings and cx.warnings[0][0] == "SH201"
    assert str(out.shape) == "[B, B]"
    cx = ConcreteContext("F.mse_loss(pred, y)")
    out = lookup("torch.nn.functional.mse_loss").fn(cx, TensorV(Shape.of([Expr.sym("B"), 3])),
                                                      TensorV(Shape.of([Expr.sym("B"), 3])))
    assert not cx.warnings and str(out.shape) == "[]"


def test_symbolic_cross_entropy():
    B, C = Expr.sym("B"), Expr.sym("C")
    out = apply("torch.nn.functional.cross_entropy", TensorV(Shape.of([B, C, 7])), TensorV(Shape.of([B, 7]), "int64"),
                reduction="none")
    assert str(out.shape) == "[B, 7]"
    assert str(apply("torch.nn.functional.cross_entropy", TensorV(Shape.of([B, C])),
                     TensorV(Shape.of([B]), "int64")).shape) == "[]"
