"""Differential tests for reductions.py against PyTorch on the meta device."""
import random

import pytest
import torch
import torch.nn.functional as F

from shapehint.ops.concrete import OpFailed, apply
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import TensorV

from .diff import T, check, run_module_rule, run_rule, torch_shape


def _cpu(v):
    if isinstance(v, T):
        return torch.zeros(v.dims, dtype={"float": torch.float32, "long": torch.int64, "bool": torch.bool}[v.dtype])
    return tuple(_cpu(i) for i in v) if isinstance(v, tuple) else v


def check_cpu(name, fn, args=(), kwargs=None):
    """Like diff.check, on small CPU tensors: meta kernels skip some of PyTorch's checks (dim range, empty dims)."""
    kwargs = kwargs or {}
    try:
        want = ("ok", torch_shape(fn(*_cpu(args), **kwargs)))
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        want = ("error", str(e)[:100])
    got = run_rule(name, args, kwargs)
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), f"{name}{args}{kwargs}: torch={want} rule={got}"

rng = random.Random(9)

REDUCE = ["sum", "mean", "amax", "amin", "all", "any", "prod", "count_nonzero", "argmax", "argmin", "max", "min",
          "median", "mode", "std", "var", "norm", "logsumexp", "nansum", "nanmean"]
SINGLE = {"prod", "argmax", "argmin", "max", "min", "median", "mode"}


def rand_dim(r, single):
    k = rng.random()
    if k < 0.2 and not single:
        return None
    if k < 0.45 and not single:
        return tuple(rng.randint(-r - 1, r) for _ in range(rng.randint(0, min(r, 3))))
    return rng.randint(-r - 1, r)


CASES = []
for _ in range(130):
    name = rng.choice(REDUCE)
    s = tuple(rng.randint(0 if rng.random() < 0.1 else 1, 4) for _ in range(rng.randint(0, 4)))
    d = rand_dim(len(s), name in SINGLE)
    kw = {} if d is None else {"dim": d}
    if name != "count_nonzero" and rng.random() < 0.5 and d is not None:
        kw["keepdim"] = rng.random() < 0.5
    if name == "logsumexp" and d is None:
        kw["dim"] = 0
    CASES.append((name, s, kw))


@pytest.mark.parametrize("name,s,kw", CASES)
def test_reduce(name, s, kw):
    check_cpu(f"torch.{name}", getattr(torch, name), (T(*s),), kw)


@pytest.mark.parametrize("name", ["argmax", "max", "median"])
@pytest.mark.parametrize("s", [(2, 3), (), (0, 3)])
def test_reduce_all(name, s):
    check_cpu(f"torch.{name}", getattr(torch, name), (T(*s),))
    check_cpu(f"torch.{name}", getattr(torch, name), (T(*s),), {"dim": 0, "keepdim": True})


def test_argmax_keepdim_no_dim():
    check("torch.argmax", torch.argmax, (T(2, 3),), {"keepdim": True})
    check("torch.max", torch.max, (T(2, 3), T(3)))
    check("torch.std", torch.std, (T(2, 3), True))


SOFT = []
for _ in range(25):
    s = tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 4)))
    SOFT.append((rng.choice(["softmax", "log_softmax", "softmin"]), s, rng.randint(-len(s) - 1, len(s))))


@pytest.mark.parametrize("name,s,d", SOFT)
def test_softmax(name, s, d):
    check_cpu(f"torch.nn.functional.{name}", getattr(F, name), (T(*s),), {"dim": d})


@pytest.mark.parametrize("layer", ["Softmax", "LogSoftmax", "Softmin"])
@pytest.mark.parametrize("d,s", [(1, (2, 3)), (-1, (4,)), (2, (2, 3))])
def test_softmax_layers(layer, d, s):
    try:
        want = ("ok", tuple(getattr(torch.nn, layer)(d)(torch.zeros(s)).shape))
    except IndexError:
        want = ("error",)
    got = run_module_rule(f"torch.nn.{layer}", (d,), {}, (T(*s),), {})
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1])


def test_softmax_long_cpu():
    with pytest.raises(RuntimeError):
        torch.softmax(torch.zeros(3, dtype=torch.long), 0)
    with pytest.raises(OpFailed):
        apply("torch.softmax", T(3, dtype="long").abstract(), 0)
    with pytest.raises(OpFailed):
        apply("torch.mean", T(3, dtype="long").abstract())


TOPK = []
for _ in range(30):
    s = tuple(rng.randint(1, 5) for _ in range(rng.randint(0, 3)))
    name = rng.choice(["topk", "sort", "kthvalue", "argsort"])
    d = rng.randint(-len(s) - 1, len(s))
    if name in ("topk", "kthvalue"):
        TOPK.append((name, (T(*s), rng.randint(0, 5)), {"dim": d}))
    else:
        TOPK.append((name, (T(*s),), {"dim": d}))


@pytest.mark.parametrize("name,args,kw", TOPK)
def test_topk_sort(name, args, kw):
    if name == "kthvalue":  # meta has no kthvalue kernel: compare on CPU
        x = torch.zeros(args[0].dims)
        try:
            want = ("ok", tuple(torch.kthvalue(x, args[1], **kw)[0].shape))
        except (RuntimeError, IndexError):
            want = ("error",)
        try:
            got = ("ok", tuple(d.value for d in apply("torch.kthvalue", args[0].abstract(), args[1], **kw).items[0].shape.dims))
        except OpFailed:
            got = ("error",)
        assert want == got
        return
    check_cpu(f"torch.{name}", getattr(torch, name), args, kw)


def test_symbolic():
    B, Tt, C = Expr.sym("B"), Expr.sym("T"), Expr.sym("C")
    x = TensorV(Shape.of((B, Tt, C)), "float32")
    assert str(apply("Tensor.mean", x, 1).shape) == "[B, C]"
    assert str(apply("Tensor.sum", x, (-1, 0), keepdim=True).shape) == "[1, T, 1]"
    v, i = apply("Tensor.max", x, dim=-1).items
    assert str(v.shape) == "[B, T]" and i.dtype == "int64"
    u = TensorV(Shape((B,), "x*", (C,)), "float32")
    assert str(apply("Tensor.sum", u, -1).shape) == "[B, *x]"
    assert str(apply("Tensor.sum", u).shape) == "[]"
    assert str(apply("Tensor.softmax", u, -1).shape) == "[B, *x, C]"
    assert str(apply("torch.topk", x, 5).items[0].shape) == "[B, T, 5]"
