"""Differential tests: PReLU, CosineSimilarity, PairwiseDistance, Softmax2d, ChannelShuffle, FractionalMaxPool,
grid_sample/affine_grid, triplet_margin_loss and ctc_loss against PyTorch."""
import random

import pytest
import torch
import torch.nn.functional as F

from shapehint.ops.concrete import ConcreteContext, OpFailed, build_module, call_module
from shapehint.ops.registry import lookup
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import TensorV, TupleV

from .diff import T, check, check_module

rng = random.Random(59)


def shape(lo=0, hi=4, top=4):
    return tuple(rng.randint(1, top) for _ in range(rng.randint(lo, hi)))


@pytest.mark.parametrize("k", range(16))
def test_prelu(k):
    s = shape()
    c = s[1] if len(s) >= 2 else 1
    n = rng.choice([1, c, c + 1])
    check("torch.nn.functional.prelu", F.prelu, (T(*s), T(n)))
    check_module("torch.nn.PReLU", torch.nn.PReLU, (n,), args=(T(*s),))


def test_prelu_weight_rank():
    check("torch.nn.functional.prelu", F.prelu, (T(2, 3), T(1, 3)))
    check("torch.nn.functional.prelu", F.prelu, (T(2, 3), T()))
    check_module("torch.nn.PReLU", torch.nn.PReLU, (), args=(T(),))


@pytest.mark.parametrize("k", range(10))
def test_distance_layers(k):
    a = shape(1, 3)
    b = tuple(d if rng.random() < 0.8 else d + 1 for d in a)
    dim = rng.randint(-len(a), len(a))
    check_module("torch.nn.CosineSimilarity", torch.nn.CosineSimilarity, (dim,), args=(T(*a), T(*b)))
    check_module("torch.nn.PairwiseDistance", torch.nn.PairwiseDistance, (), {"keepdim": rng.random() < 0.5},
                 args=(T(*a), T(*b)))


@pytest.mark.parametrize("s", [(2, 3), (2, 3, 4), (1, 2, 3, 4), (1, 1, 2, 3, 4)])
def test_softmax2d(s):
    check_module("torch.nn.Softmax2d", torch.nn.Softmax2d, args=(T(*s),))


@pytest.mark.parametrize("k", range(12))
def test_channel_shuffle(k):
    s = shape(2, 4, 6)
    g = rng.choice([1, 2, 3, 0, -1])
    check("torch.nn.functional.channel_shuffle", F.channel_shuffle, (T(*s), g))
    check_module("torch.nn.ChannelShuffle", torch.nn.ChannelShuffle, (g,), args=(T(*s),))


@pytest.mark.parametrize("k", range(20))
def test_fractional_max_pool(k):
    nsp = rng.choice([2, 3])
    s = tuple(rng.randint(3, 9) for _ in range(nsp))
    x = T(*((rng.randint(1, 2),) if rng.random() < 0.6 else ()), 3, *s)
    ks = rng.randint(1, 4)
    fn = getattr(F, f"fractional_max_pool{nsp}d")
    layer = getattr(torch.nn, f"FractionalMaxPool{nsp}d")
    ri = rng.random() < 0.3
    if rng.random() < 0.5:
        out = rng.randint(1, 8)
        check(f"torch.nn.functional.fractional_max_pool{nsp}d", fn, (x, ks), {"output_size": out, "return_indices": ri})
        check_module(f"torch.nn.FractionalMaxPool{nsp}d", layer, (ks,), {"output_size": out, "return_indices": ri},
                     args=(x,))
    else:
        r = rng.choice([0.3, 0.5, 0.75, 1.0])
        check(f"torch.nn.functional.fractional_max_pool{nsp}d", fn, (x, ks), {"output_ratio": (r,) * nsp})
        check(f"torch.nn.functional.fractional_max_pool{nsp}d", fn, (x, ks), {"output_ratio": r})
        check_module(f"torch.nn.FractionalMaxPool{nsp}d", layer, (ks,), {"output_ratio": r}, args=(x,))


def test_fractional_max_pool_ctor_errors():
    check_module("torch.nn.FractionalMaxPool2d", torch.nn.FractionalMaxPool2d, (2,), args=(T(1, 3, 8, 8),))
    check_module("torch.nn.FractionalMaxPool2d", torch.nn.FractionalMaxPool2d, (2,),
                 {"output_size": 4, "output_ratio": 0.5}, args=(T(1, 3, 8, 8),))
    check("torch.nn.functional.fractional_max_pool2d", F.fractional_max_pool2d, (T(1, 3, 8, 8), 2))
    check("torch.nn.functional.fractional_max_pool2d", F.fractional_max_pool2d, (T(8, 8), 2), {"output_size": 4})


@pytest.mark.parametrize("k", range(16))
def test_grid_sample(k):
    nsp = rng.choice([2, 3])
    n = rng.randint(1, 2)
    x = (n + (rng.random() < 0.15), 3) + tuple(rng.randint(1, 5) for _ in range(nsp))
    g = (n,) + tuple(rng.randint(1, 5) for _ in range(nsp)) + (nsp if rng.random() < 0.85 else nsp + 1,)
    if rng.random() < 0.1:
        g = g[1:]
    mode = rng.choice(["bilinear", "nearest", "bicubic"])
    # the meta kernel misses checks (batch, last dim): compare with CPU
    check("torch.nn.functional.grid_sample", F.grid_sample, (T(*x), T(*g)), {"mode": mode, "align_corners": False},
          device="cpu")


@pytest.mark.parametrize("theta,size", [((2, 2, 3), (2, 3, 5, 6)), ((2, 3, 4), (2, 3, 5, 6, 7)),
                                        ((2, 2, 4), (2, 3, 5, 6)), ((3, 2, 3), (2, 3, 5, 6)),
                                        ((2, 2, 3), (2, 3, 0, 6)), ((2, 2, 3), (2, 3, 6)), ((2, 3), (2, 3, 5, 6))])
def test_affine_grid(theta, size):
    check("torch.nn.functional.affine_grid", F.affine_grid, (T(*theta), size), {"align_corners": False})


@pytest.mark.parametrize("k", range(16))
def test_triplet_margin_loss(k):
    a = shape(1, 3)
    p = tuple(d if rng.random() < 0.8 else rng.choice([1, d + 1]) for d in a)
    n = a if rng.random() < 0.8 else a[1:]
    kw = {"reduction": rng.choice(["none", "mean", "sum"]), "swap": rng.random() < 0.3}
    check("torch.nn.functional.triplet_margin_loss", F.triplet_margin_loss, (T(*a), T(*p), T(*n)), kw)
    check_module("torch.nn.TripletMarginLoss", torch.nn.TripletMarginLoss, (), kw, args=(T(*a), T(*p), T(*n)))


@pytest.mark.parametrize("lp,tg,il,tl,red", [
    ((5, 2, 4), (2, 3), (2,), (2,), "none"), ((5, 2, 4), (2, 3), (2,), (2,), "mean"), ((5, 2, 4), (3, 3), (2,), (2,), "none"),
    ((5, 2, 4), (2, 3), (3,), (2,), "none"), ((5, 2, 4), (2, 3), (2,), (3,), "none"), ((5, 2, 4, 1), (2, 3), (2,), (2,), "sum"),
    ((5, 2, 4), (0,), (2,), (2,), "none"), ((5, 4), (1, 3), (1,), (1,), "none"), ((5, 4), (1, 3), (1,), (1,), "mean"),
    ((5, 2, 4), (2, 3), [5, 5], [3, 3], "none"), ((5, 2, 4), (2, 3), [5, 5, 5], [3, 3], "none")])
def test_ctc_loss_on_cpu(lp, tg, il, tl, red):
    # ctc_loss has no meta kernel: small CPU tensors (lengths 0; concatenated targets then have 0 labels)
    lens = [T(*v, dtype="long") if isinstance(v, tuple) else v for v in (il, tl)]
    check("torch.nn.functional.ctc_loss", F.ctc_loss, (T(*lp), T(*tg, dtype="long"), *lens), {"reduction": red},
          device="cpu")
    from shapehint.ops.concrete import shape_of
    from .diff import _to_abstract, run_torch
    want = run_torch(torch.nn.CTCLoss(reduction=red), (T(*lp), T(*tg, dtype="long"), *lens), {}, device="cpu")
    try:
        m = build_module("torch.nn.CTCLoss", reduction=red)
        got = ("ok", shape_of(call_module(ConcreteContext("CTCLoss"), m,
                                          list(_to_abstract((T(*lp), T(*tg, dtype="long"), *lens))), {})))
    except OpFailed as e:
        got = ("error", e.message)
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), (want, got)


def test_symbolic_layers():
    B, C, H, W = (Expr.sym(n) for n in "BCHW")
    x = TensorV(Shape.of([B, C, H, W]))
    m = build_module("torch.nn.PReLU", 8)
    assert str(call_module(ConcreteContext("prelu"), m, [TensorV(Shape.of([B, 8, H]))], {}).shape) == "[B, 8, H]"
    with pytest.raises(OpFailed) as e:
        call_module(ConcreteContext("prelu"), m, [TensorV(Shape.of([B, 4, H]))], {})
    assert e.value.code == "SH101"
    g = lookup("torch.nn.functional.grid_sample").fn(ConcreteContext("gs"), x, TensorV(Shape.of([B, 7, 9, 2])))
    assert str(g.shape) == "[B, C, 7, 9]"
    m = build_module("torch.nn.FractionalMaxPool2d", 3, output_size=5)
    out = call_module(ConcreteContext("fmp"), m, [x], {})
    assert str(out.shape) == "[B, C, 5, 5]"
    loss = lookup("torch.nn.functional.ctc_loss").fn(ConcreteContext("ctc"), TensorV(Shape.of([H, B, C])),
                                                      TensorV(Shape.of([B, W])), TensorV(Shape.of([B])),
                                                      TensorV(Shape.of([B])), reduction=_s("none"))
    assert str(loss.shape) == "[B]"
    assert isinstance(call_module(ConcreteContext("cs"), build_module("torch.nn.ChannelShuffle", 1), [x], {}),
                      TensorV)


def _s(v):
    from shapehint.ops.concrete import wrap
    return wrap(v)
