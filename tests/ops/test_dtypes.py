"""Type promotion (ops/dtypes.py) against PyTorch: promote_types over every pair, result_type
over tensors of each rank class and Python scalars."""
import itertools

import pytest
import torch

from shapehint.ops import dtypes
from shapehint.ops.concrete import tensor
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import BoolV, FloatV, IntV, TensorV
from shapehint.shapes.shape import Pred

TORCH = {name: getattr(torch, name) for name in dtypes.KNOWN}
NAMES = {v: k for k, v in TORCH.items()}


@pytest.mark.parametrize("a,b", list(itertools.product(dtypes.KNOWN, repeat=2)))
def test_promote_is_torch_promote_types(a, b):
    assert dtypes.promote(a, b) == NAMES[torch.promote_types(TORCH[a], TORCH[b])]


def test_promote_unknown_is_unknown():
    assert dtypes.promote("float32", None) is None
    assert dtypes.promote("float32", "quint8") is None


SCALARS = {"int": (3, IntV(Expr.const(3))), "float": (0.5, FloatV(0.5)), "bool": (True, BoolV(Pred("true")))}
MAIN = ("bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64")


def _cases():
    for a, b in itertools.product(MAIN, repeat=2):
        for ra, rb in ((1, 1), (1, 0), (0, 1), (0, 0)):
            yield (a, ra), (b, rb)
    for a in MAIN:
        for s in SCALARS:
            for r in (0, 1):
                yield (a, r), s


def _real(x):
    if isinstance(x, str):
        return SCALARS[x][0]
    dt, r = x
    return torch.empty((2,) * r, dtype=TORCH[dt], device="meta")


def _abstract(x):
    if isinstance(x, str):
        return SCALARS[x][1]
    dt, r = x
    return tensor(*((2,) * r), dtype=dt)


@pytest.mark.parametrize("x,y", list(_cases()))
def test_result_type_is_torch_result_type(x, y):
    want = NAMES[torch.result_type(_real(x), _real(y))]
    assert dtypes.result_type(_abstract(x), _abstract(y)) == want
    assert dtypes.result_type(_abstract(y), _abstract(x)) == want


def test_unknown_dtype_or_deciding_rank_is_unknown():
    assert dtypes.result_type(tensor(2, dtype="int64"), tensor(2)) is None
    star = TensorV(Shape.unknown("s"), "float64")
    # a float64 tensor of unknown rank with a float32 one: float64 unless it is 0-D
    assert dtypes.result_type(tensor(2, dtype="float32"), star) is None
    # ... but with an int64 one it wins either way
    assert dtypes.result_type(tensor(2, dtype="int64"), star) == "float64"
