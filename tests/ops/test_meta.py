"""Differential tests for tensor_metadata.py: size/dim/numel/item/backward against PyTorch."""
import random

import pytest
import torch

from shapehint.ops.concrete import NotApplicable, OpFailed, apply
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import FloatV, IntV, StarSizeV, TensorV, TupleV

from .diff import T, check

rng = random.Random(29)
SHAPES = [tuple(rng.randint(0 if rng.random() < 0.1 else 1, 5) for _ in range(rng.randint(0, 4))) for _ in range(20)]


def _ints(v):
    if isinstance(v, TupleV):
        return tuple(i.expr.value for i in v.items)
    return v.expr.value


@pytest.mark.parametrize("s", SHAPES)
def test_size_dim_numel(s):
    x = torch.empty(s, device="meta")
    a = T(*s).abstract()
    assert _ints(apply("Tensor.size", a)) == tuple(x.size())
    v = apply("Tensor.size", a)
    assert v.is_size
    assert _ints(apply("Tensor.dim", a)) == x.dim() == _ints(apply("Tensor.ndimension", a))
    assert _ints(apply("Tensor.numel", a)) == x.numel() == _ints(apply("torch.numel", a))
    for d in range(-len(s) - 2, len(s) + 2):
        check("Tensor.size", torch.Tensor.size, (T(*s), d))


ITEM = [(), (1,), (1, 1, 1), (2,), (0,), (1, 3), (3, 1)]


@pytest.mark.parametrize("s", ITEM)
@pytest.mark.parametrize("dtype", ["float", "long"])
def test_item(s, dtype):
    x = torch.zeros(s, dtype=torch.long if dtype == "long" else torch.float32)
    try:
        want = type(x.item())
    except RuntimeError:
        want = None
    try:
        v = apply("Tensor.item", T(*s, dtype=dtype).abstract())
        got = int if isinstance(v, IntV) else float if isinstance(v, FloatV) else "?"
    except OpFailed as e:
        assert e.code == "SH109"
        got = None
    assert want == got


@pytest.mark.parametrize("s,g", [((), None), ((1,), None), ((2,), None), ((2, 3), (2, 3)), ((2, 3), (3, 2)),
                                 ((2, 3), (2, 3, 1)), ((1, 1), None)])
def test_backward(s, g):
    x = torch.zeros(s, requires_grad=True)
    y = x * 2
    try:
        y.backward(None if g is None else torch.ones(g))
        want = "ok"
    except RuntimeError:
        want = "error"
    try:
        apply("Tensor.backward", T(*s).abstract(), None if g is None else T(*g).abstract())
        got = "ok"
    except OpFailed as e:
        got = "error"
        assert g is not None or e.code == "SH109"
    assert want == got


def test_symbolic_and_unknown_rank():
    B, C = Expr.sym("B"), Expr.sym("C")
    x = TensorV(Shape.of((B, 3, C)), "float32")
    assert [str(i.expr) for i in apply("Tensor.size", x).items] == ["B", "3", "C"]
    assert str(apply("Tensor.numel", x).expr) == "3*B*C"
    assert str(apply("Tensor.size", x, -1).expr) == "C"
    u = TensorV(Shape((B,), "x*", (C,)), "float32")
    assert str(apply("Tensor.size", u, 0).expr) == "B" and str(apply("Tensor.size", u, -1).expr) == "C"
    # the sizes of an unknown rank are held around its segment (issue 28: `batch, seq = x.size()`
    # teaches the rank, `torch.zeros(x.size())` keeps it); how many there are is still unknown
    held = apply("Tensor.size", u)
    assert isinstance(held, StarSizeV) and held.shape == u.shape
    with pytest.raises(NotApplicable):
        apply("Tensor.dim", u)
    apply("Tensor.item", TensorV(Shape.of((B,)), "float32"))  # B == 1 is possible: no error
    assert not isinstance(apply("Tensor.tolist", x), (TensorV, IntV))
