"""Differential tests: padding, interpolation, pixel shuffle, fold/unfold, Flatten/Unflatten."""
import random

import pytest
import torch
import torch.nn.functional as F

from shapehint.ops.concrete import ConcreteContext, OpFailed, apply, build_module, call_module
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import IntV, TensorV

from .diff import T, check, check_module
from .test_conv import cpu_check


def _x(r, lo, hi, top=5):
    return T(*[r.randint(1, top) for _ in range(r.randint(lo, hi))])


@pytest.mark.parametrize("k", range(50))
def test_pad(k):
    r = random.Random(k)
    mode = r.choice(["constant", "constant", "reflect", "replicate", "circular"])
    x = _x(r, 1, 5)
    n = r.choice([1, 1, 2, 2, 3, 4]) * 2 + (1 if r.random() < 0.05 else 0)
    if mode != "constant" and r.random() < 0.7:  # mostly a pad that fits the rank rule
        n = 2 * max(1, min(3, len(x.dims) - 1))
    p = tuple(r.randint(-1, 3) if r.random() < 0.8 else r.randint(-4, 5) for _ in range(n))
    kw = {"mode": mode}
    if r.random() < 0.1:
        kw["value"] = 1.0
    check("torch.nn.functional.pad", F.pad, (x, p), kw)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("value", [0.0, 0, 1.0, None])
def test_pad_value_of_a_non_constant_mode(mode, value):
    """PyTorch rejects a value for these modes only when it is not 0 (torchaudio's HDemucs
    passes its `value=0.0` default through to `F.pad(x, pad, mode, value)`)."""
    check("torch.nn.functional.pad", F.pad, (T(1, 2, 6), (2, 2)), {"mode": mode, "value": value})


@pytest.mark.parametrize("k", range(20))
def test_pad_layers(k):
    r = random.Random(100 + k)
    nsp = r.choice([1, 2, 3])
    kind = r.choice(["ZeroPad", "ConstantPad", "ReflectionPad", "ReplicationPad", "CircularPad"])
    p = r.choice([r.randint(0, 3), tuple(r.randint(0, 3) for _ in range(2 * nsp))])
    args = (p, 0.5) if kind == "ConstantPad" else (p,)
    check_module(f"torch.nn.{kind}{nsp}d", getattr(torch.nn, f"{kind}{nsp}d"), args, {}, (_x(r, nsp, nsp + 2),))


@pytest.mark.parametrize("k", range(45))
def test_interpolate(k):
    r = random.Random(200 + k)
    x = _x(r, 3, 5, 6) if r.random() < 0.85 else _x(r, 2, 6, 6)
    nsp = max(len(x.dims) - 2, 1)
    fitting = {3: "linear", 4: r.choice(["bilinear", "bicubic"]), 5: "trilinear"}.get(len(x.dims), "linear")
    kw = {"mode": r.choice(["nearest", "nearest", fitting, fitting, "linear", "bicubic", "area", "nearest-exact"])}
    roll = r.random()
    if roll < 0.45:
        kw["size"] = r.choice([r.randint(1, 9), tuple(r.randint(1, 9) for _ in range(nsp)), (3,) * (nsp + 1)])
    elif roll < 0.95:
        kw["scale_factor"] = r.choice([2, 0.5, 1.5, 3.0, 0.3, 0.1, tuple(r.choice([1, 2, 0.5]) for _ in range(nsp))])
    if r.random() < 0.15:
        kw["align_corners"] = True
    if r.random() < 0.1:
        kw["antialias"] = True
    # CPU: the meta kernels of the linear modes accept empty outputs that CPU rejects
    cpu_check("torch.nn.functional.interpolate", F.interpolate, (x,), kw)


@pytest.mark.parametrize("k", range(10))
def test_upsample(k):
    r = random.Random(300 + k)
    x = _x(r, 3, 5)
    kw = r.choice([{"scale_factor": 2}, {"scale_factor": 1.5, "mode": "bilinear"}, {"size": 4},
                   {"scale_factor": (2, 2)}])
    check_module("torch.nn.Upsample", torch.nn.Upsample, (), kw, (x,))
    check_module("torch.nn.UpsamplingNearest2d", torch.nn.UpsamplingNearest2d, (), {"scale_factor": 2}, (x,))


@pytest.mark.parametrize("k", range(20))
def test_pixel_shuffle(k):
    r = random.Random(400 + k)
    x = T(*[r.randint(1, 3) for _ in range(r.randint(0, 2))], r.choice([4, 8, 9, 6, 12]), r.randint(1, 6),
          r.randint(1, 6))
    f = r.choice([1, 2, 3])
    check("torch.nn.functional.pixel_shuffle", F.pixel_shuffle, (x, f))
    check("torch.nn.functional.pixel_unshuffle", F.pixel_unshuffle, (x, f))
    check_module("torch.nn.PixelShuffle", torch.nn.PixelShuffle, (f,), {}, (x,))


@pytest.mark.parametrize("k", range(25))
def test_unfold_fold(k):
    r = random.Random(500 + k)
    ks = r.choice([1, 2, 3, (2, 3)])
    kw = {"dilation": r.choice([1, 2]), "padding": r.choice([0, 1]), "stride": r.choice([1, 2])}
    x = T(*([r.randint(1, 2)] if r.random() < 0.7 else []), r.randint(1, 3), r.randint(1, 7), r.randint(1, 7))
    check("torch.nn.functional.unfold", F.unfold, (x, ks), kw)
    # fold: start from a correct unfold shape, sometimes perturbed
    try:
        cols = F.unfold(x.meta(), ks, **kw).shape
    except RuntimeError:
        return
    cols = list(cols)
    if r.random() < 0.3:
        cols[r.choice([-1, -2])] += 1
    check("torch.nn.functional.fold", F.fold, (T(*cols), tuple(x.dims[-2:]), ks), kw)
    check_module("torch.nn.Fold", torch.nn.Fold, (tuple(x.dims[-2:]), ks), kw, (T(*cols),))


@pytest.mark.parametrize("k", range(25))
def test_flatten_unflatten(k):
    r = random.Random(600 + k)
    x = _x(r, 0, 4)
    check_module("torch.nn.Flatten", torch.nn.Flatten, (), {"start_dim": r.randint(-3, 3), "end_dim": r.randint(-3, 3)},
                 (x,))
    if x.dims:
        dim = r.randint(-len(x.dims), len(x.dims) - 1)
        n = x.dims[dim]
        sizes = r.choice([(n, 1), (1, n), (-1, 1), (2, -1), (n + 1,), (-1, -1), (n,)])
        check_module("torch.nn.Unflatten", torch.nn.Unflatten, (dim, sizes), {}, (x,))


def test_symbolic_resize():
    B, C, H, W = (Expr.sym(s) for s in "BCHW")
    x = TensorV(Shape.of([B, C, H, W]))
    assert str(apply("torch.nn.functional.pad", x, (1, 1, 2, 2)).shape) == "[B, C, H + 4, W + 2]"
    assert str(apply("torch.nn.functional.interpolate", x, scale_factor=2).shape) == "[B, C, 2*H, 2*W]"
    assert str(apply("torch.nn.functional.interpolate", x, scale_factor=1.5).shape) == "[B, C, (3*H)//2, (3*W)//2]"
    m = build_module("torch.nn.Flatten")
    assert str(call_module(ConcreteContext("flat"), m, [TensorV(Shape.of([B, 64, 7, 7]))], {}).shape) == "[B, 3136]"
    m = build_module("torch.nn.Unflatten", 1, (IntV(C), -1))
    out = call_module(ConcreteContext("unflat"), m, [TensorV(Shape.of([B, C * H]))], {})
    assert str(out.shape) == "[B, C, H]"
    with pytest.raises(OpFailed):
        apply("torch.nn.functional.pixel_shuffle", TensorV(Shape.of([B, 6, H, W])), 2)
