"""Differential tests for creation.py: output shape and dtype against PyTorch (meta device)."""
import random

import pytest
import torch

from shapehint.ops.concrete import OpFailed, apply, shape_of
from shapehint.shapes.expr import Expr
from shapehint.shapes.values import DtypeV, IntV

from .diff import T

rng = random.Random(17)
TD = {"float32": torch.float32, "int64": torch.int64, "bool": torch.bool, "float64": torch.float64,
      "int32": torch.int32, "float16": torch.float16}


def check_create(name, fn, args=(), kw=None, dtype=None, device="meta"):
    kw = dict(kw or {})
    tkw, rkw = dict(kw), dict(kw)
    if dtype:
        tkw["dtype"], rkw["dtype"] = TD[dtype], DtypeV(dtype)
    targs = tuple(a.meta() if isinstance(a, T) else a for a in args)
    rargs = tuple(a.abstract() if isinstance(a, T) else a for a in args)
    try:
        out = fn(*targs, device=device, **tkw) if device else fn(*targs, **tkw)
        want = ("ok", tuple(out.shape), str(out.dtype).replace("torch.", ""))
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        want = ("error", str(e)[:80])
    try:
        v = apply(name, *rargs, **rkw)
        got = ("ok", shape_of(v), v.dtype)
    except OpFailed as e:
        got = ("error", e.message)
    assert want[0] == got[0] and (want[0] == "error" or want[1:] == got[1:]), f"{name}{args}{kw}: torch={want} rule={got}"


FILLED = []
for _ in range(30):
    s = tuple(rng.randint(-1 if rng.random() < 0.1 else 0, 4) for _ in range(rng.randint(0, 4)))
    name = rng.choice(["zeros", "ones", "empty", "rand", "randn"])
    form = rng.choice(["varargs", "tuple", "list"])
    args = s if form == "varargs" else ((s,) if form == "tuple" else (list(s),))
    FILLED.append((name, args, rng.choice([None, None, "float64", "int64"]) if name not in ("rand", "randn") else None))


@pytest.mark.parametrize("name,args,dtype", FILLED)
def test_filled(name, args, dtype):
    check_create(f"torch.{name}", getattr(torch, name), args, dtype=dtype)


@pytest.mark.parametrize("args,dtype", [(((2, 3), 1.5), None), (((2,), 1), None), (((2,), True), None),
                                        (((2, 3), 0), "float32"), (((-1,), 0), None)])
def test_full(args, dtype):
    check_create("torch.full", torch.full, args, dtype=dtype)


@pytest.mark.parametrize("args", [(5, (2, 3)), (2, 5, (4,)), (5, 2, (4,)), (0, 3, [2, 2])])
def test_randint(args):
    check_create("torch.randint", torch.randint, args)


ARANGE = []
for _ in range(20):
    n = rng.randint(1, 3)
    vals = [rng.randint(-5, 10) for _ in range(n)]
    if n == 3 and rng.random() < 0.5:
        vals[2] = rng.choice([-3, -1, 2, 3, 0])
    if rng.random() < 0.25:
        vals[rng.randrange(n)] += 0.5
    ARANGE.append(tuple(vals))


@pytest.mark.parametrize("args", ARANGE)
def test_arange(args):
    check_create("torch.arange", torch.arange, args)


@pytest.mark.parametrize("name,args", [("linspace", (0, 1, 5)), ("linspace", (0, 1, 0)), ("linspace", (0, 1, -1)),
                                       ("logspace", (0, 1, 3)), ("eye", (3,)), ("eye", (3, 5)), ("eye", (-1,)),
                                       ("tril_indices", (4, 3)), ("tril_indices", (4, 3, 1)), ("triu_indices", (3, 5, -1)),
                                       ("triu_indices", (4, 4))])
def test_ranges(name, args):
    check_create(f"torch.{name}", getattr(torch, name), args, device="cpu" if "indices" in name else "meta")


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "randn_like", "rand_like"])
@pytest.mark.parametrize("s,dtype", [((2, 3), None), ((), "float64"), ((0, 4), None)])
def test_like(name, s, dtype):
    check_create(f"torch.{name}", getattr(torch, name), (T(*s),), dtype=dtype)


def test_full_like_and_new():
    check_create("torch.full_like", torch.full_like, (T(2, 3, dtype="long"), 1.5))
    for name, args in [("new_zeros", ((2, 3),)), ("new_ones", (4, 1)), ("new_empty", ([2],)), ("new_full", ((2, 2), 7))]:
        x = T(5, dtype="long")
        want = getattr(x.meta(), name)(*args)
        got = apply(f"Tensor.{name}", x.abstract(), *args)
        assert shape_of(got) == tuple(want.shape) and got.dtype == "int64"


NESTED = [[1, 2, 3], [[1, 2], [3, 4], [5, 6]], [[1.0, 2], [3, 4]], [True, False], [[[1]]], [], [[]], 3, 2.5,
          [[1, 2], [3]], [[1, 2], 3], ([1, 2], [3, 4]), [True, 1]]


@pytest.mark.parametrize("data", NESTED)
def test_tensor(data):
    check_create("torch.tensor", torch.tensor, (data,), device=None)  # meta skips the ragged check


def test_as_tensor_of_tensor_and_symbolic():
    assert shape_of(apply("torch.as_tensor", T(2, 3).abstract())) == (2, 3)
    with pytest.raises(OpFailed):
        apply("torch.tensor", [T(2).abstract(), T(2).abstract()])
    assert shape_of(apply("torch.tensor", [T().abstract(), T().abstract()])) == (2,)
    N = Expr.sym("N")
    assert str(apply("torch.zeros", IntV(N), 3).shape) == "[N, 3]"
    assert str(apply("torch.arange", IntV(N)).shape) == "[N]"
    assert str(apply("torch.arange", 1, IntV(N), 2).shape) == "[N//2]"
    assert str(apply("torch.eye", IntV(N)).shape) == "[N, N]"
    assert apply("torch.arange", 0, IntV(N), 2).dtype == "int64"
