"""Differential tests: pooling rules against PyTorch on the meta device."""
import random

import pytest
import torch
import torch.nn.functional as F

from shapehint.ops.concrete import ConcreteContext, build_module, call_module
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import TensorV

from .diff import T, check, check_module
from .test_conv import cpu_check, cpu_check_module


def _case(seed):
    r = random.Random(seed)
    nsp = r.choice([1, 2, 2, 3])
    sp = [r.randint(1, 9) for _ in range(nsp)]
    x = T(*(([r.randint(1, 2)] if r.random() < 0.7 else []) + [r.randint(1, 3)] + sp))
    if r.random() < 0.05:
        x = T(*([2] * (nsp + 3)))  # wrong rank
    k = r.choice([1, 2, 3, 4, tuple(r.randint(1, 3) for _ in range(nsp))])
    kw = dict(stride=r.choice([None, 1, 2, 3]), padding=r.choice([0, 0, 1, 2]), ceil_mode=r.random() < 0.5)
    return nsp, x, k, kw, r


@pytest.mark.parametrize("k", range(50))
def test_max_pool(k):
    nsp, x, ks, kw, r = _case(k)
    kw["dilation"] = r.choice([1, 1, 2])
    kw["return_indices"] = r.random() < 0.3
    check(f"torch.nn.functional.max_pool{nsp}d", getattr(F, f"max_pool{nsp}d"), (x, ks), kw)


@pytest.mark.parametrize("k", range(50))
def test_avg_pool(k):
    nsp, x, ks, kw, r = _case(1000 + k)
    kw["count_include_pad"] = r.random() < 0.5
    if nsp > 1 and r.random() < 0.2:
        kw["divisor_override"] = r.choice([0, 2])
    # CPU: the meta kernel of avg_pool1d skips some checks
    cpu_check(f"torch.nn.functional.avg_pool{nsp}d", getattr(F, f"avg_pool{nsp}d"), (x, ks), kw)


@pytest.mark.parametrize("k", range(30))
def test_adaptive(k):
    r = random.Random(2000 + k)
    nsp = r.choice([1, 2, 3])
    x = T(*(([2] if r.random() < 0.7 else []) + [3] + [r.randint(1, 9) for _ in range(nsp)]))
    out = r.choice([1, 3, 5, tuple(r.choice([None, 2, 4]) for _ in range(nsp)), (2,) * (nsp + 1)])
    if r.random() < 0.5:
        check(f"torch.nn.functional.adaptive_avg_pool{nsp}d", getattr(F, f"adaptive_avg_pool{nsp}d"), (x, out))
    else:
        check(f"torch.nn.functional.adaptive_max_pool{nsp}d", getattr(F, f"adaptive_max_pool{nsp}d"), (x, out),
              {"return_indices": r.random() < 0.5})


@pytest.mark.parametrize("k", range(24))
def test_pool_layers(k):
    nsp, x, ks, kw, r = _case(3000 + k)
    which = r.choice(["MaxPool", "AvgPool", "LPPool"])
    if which == "MaxPool":
        kw["return_indices"] = r.random() < 0.3
        args = (ks,)
    elif which == "AvgPool":
        args = (ks,)
    else:
        args, kw = (2.0, ks), {"stride": kw["stride"], "ceil_mode": kw["ceil_mode"]}
    check_module(f"torch.nn.{which}{nsp}d", getattr(torch.nn, f"{which}{nsp}d"), args, kw, (x,))


@pytest.mark.parametrize("out", [(1, 1), 1, 7, (None, 3)])
def test_global_pool(out):
    check_module("torch.nn.AdaptiveAvgPool2d", torch.nn.AdaptiveAvgPool2d, (out,), {}, (T(4, 64, 7, 9),))
    check_module("torch.nn.AdaptiveMaxPool2d", torch.nn.AdaptiveMaxPool2d, (out,), {"return_indices": True},
                 (T(64, 7, 9),))


@pytest.mark.parametrize("size", [None, [5, 5], [4, 4], [6, 6], [1, 3, 5, 5], [3, 3]])
def test_max_unpool(size):
    idx = T(1, 3, 2, 2, dtype="long")
    cpu_check_module("torch.nn.MaxUnpool2d", torch.nn.MaxUnpool2d, (2,), {"stride": 2, "padding": 0},
                     (T(1, 3, 2, 2), idx), {"output_size": size})


def test_max_unpool1d():
    check("torch.nn.functional.max_unpool1d", F.max_unpool1d, (T(2, 3, 4), T(2, 3, 4, dtype="long"), 3))


def _sym(name, ctor, kw, dims):
    m = build_module(name, *ctor, **kw)
    x = TensorV(Shape.of([Expr.sym(d) if isinstance(d, str) else d for d in dims]))
    out = call_module(ConcreteContext(name), m, [x], {})
    return str(out.shape)


def test_symbolic_pool():
    assert _sym("torch.nn.MaxPool2d", (2,), {}, ["B", "C", "H", "W"]) == "[B, C, H//2, W//2]"
    assert _sym("torch.nn.MaxPool2d", (3,), {"stride": 2, "padding": 1}, ["B", 8, "H", 32]) == \
        "[B, 8, (H - 1)//2 + 1, 16]"
    assert _sym("torch.nn.AdaptiveAvgPool2d", ((1, 1),), {}, ["B", 512, "H", "W"]) == "[B, 512, 1, 1]"
    assert _sym("torch.nn.AdaptiveAvgPool2d", ((None, 4),), {}, ["B", 512, "H", "W"]) == "[B, 512, H, 4]"
    ceil = _sym("torch.nn.MaxPool2d", (2,), {"ceil_mode": True}, ["B", 8, "H", 7])
    assert ceil.endswith(", 4]") and "H" in ceil


@pytest.mark.parametrize("k,s,p,d", [(3, 2, 0, 1), (3, 2, 1, 1), (2, 2, 0, 1), (3, 3, 1, 1), (1, 2, 0, 1),
                                     (2, 3, 0, 1), (3, 2, 1, 2), (5, 4, 2, 1)])
def test_ceil_mode_formula_holds_for_every_size(k, s, p, d):
    # the symbolic size is torch's for every input size; it is a plain floor division (no min)
    # exactly when a last window can never start past the input and left padding
    from shapehint.ops.families.pool import pool_out
    out = pool_out(Expr.sym("H"), k, s, p, d, True)
    assert ("min" in str(out)) == (s + p > d * (k - 1) + 1), out
    for h in range(1, 40):
        try:
            want = F.max_pool1d(torch.empty(1, 1, h, device="meta"), k, s, p, d, ceil_mode=True).shape[-1]
        except RuntimeError:
            continue
        assert out.evaluate({"H": h}) == want, (h, out)
