"""Differential tests: broadcast_tensors, atleast_Nd, h/v/dsplit, column_stack, block_diag, cartesian_prod,
combinations, randperm, index_put(_), complex/polar against PyTorch."""
import random

import pytest
import torch

from shapehint.ops.concrete import ConcreteContext, OpFailed
from shapehint.ops.registry import lookup
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import IntV, TensorV, TupleV

from .diff import T, check

rng = random.Random(47)


def shape(lo=0, hi=3, top=4):
    return tuple(rng.randint(1, top) for _ in range(rng.randint(lo, hi)))


@pytest.mark.parametrize("k", range(12))
def test_broadcast_tensors(k):
    a = shape()
    b = tuple(d if rng.random() < 0.7 else rng.choice([1, d + 1]) for d in a)[rng.randint(0, len(a)):]
    c = shape(0, 2)
    check("torch.broadcast_tensors", torch.broadcast_tensors, (T(*a), T(*b)))
    check("torch.broadcast_tensors", torch.broadcast_tensors, (T(*a), T(*b), T(*c)))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_atleast(n):
    fn = getattr(torch, f"atleast_{n}d")
    for s in [(), (3,), (3, 4), (2, 3, 4)]:
        check(f"torch.atleast_{n}d", fn, (T(*s),))
    check(f"torch.atleast_{n}d", fn, (T(), T(3), T(2, 3)))
    check(f"torch.atleast_{n}d", fn, ((T(5), T(2, 3)),))


@pytest.mark.parametrize("k", range(20))
def test_direction_splits(k):
    s = shape(0, 4, 6)
    spec = rng.choice([1, 2, 3, 0, [1, 3], [2], (0, 5)])
    for name in ("hsplit", "vsplit", "dsplit"):
        check(f"torch.{name}", getattr(torch, name), (T(*s), spec))


@pytest.mark.parametrize("shapes", [[(3,), (3, 2), (3,)], [(), (1, 2)], [(3,), (4,)], [(2, 3, 4), (2, 1, 4)],
                                    [(2, 3), (2,)], [(4,)]])
def test_column_stack(shapes):
    check("torch.column_stack", torch.column_stack, (tuple(T(*s) for s in shapes),))


@pytest.mark.parametrize("shapes", [[(), (3,), (2, 4)], [(2, 3)], [(2, 3, 4)], [(0, 2), (3,)]])
def test_block_diag(shapes):
    check("torch.block_diag", torch.block_diag, tuple(T(*s) for s in shapes))


@pytest.mark.parametrize("shapes", [[(3,)], [(3,), (4,)], [(2,), (3,), (4,)], [(3, 2)], [(3,), ()]])
def test_cartesian_prod(shapes):
    check("torch.cartesian_prod", torch.cartesian_prod, tuple(T(*s) for s in shapes))


@pytest.mark.parametrize("n,r,rep", [(5, 2, False), (5, 2, True), (4, 3, False), (3, 4, False), (3, 4, True),
                                     (4, 1, False), (4, 0, False), (1, 2, False)])
def test_combinations_on_cpu(n, r, rep):
    # combinations uses masked_select, which has no meta kernel
    check("torch.combinations", torch.combinations, (T(n), r, rep), device="cpu")
    check("torch.combinations", torch.combinations, (T(n, 2), r, rep), device="cpu")


@pytest.mark.parametrize("n", [0, 1, 7, -1])
def test_randperm(n):
    check("torch.randperm", lambda n: torch.randperm(n, device="meta"), (n,))


@pytest.mark.parametrize("idx,v", [(((2,),), (2, 4)), (((2,),), (4,)), (((2,),), (3, 4)), (((2,), (2,)), (2,)),
                                   (((2,), (3, 1)), (3, 2)), (((5,), (5,), (5,)), (1,)), (((2,), (3,)), (1,))])
def test_index_put(idx, v):
    # meta's index_put_ skips the value check: compare with CPU (zero indices are always in range)
    args = (T(3, 4), tuple(T(*i, dtype="long") for i in idx), T(*v))
    check("Tensor.index_put_", torch.Tensor.index_put_, args, device="cpu")
    check("torch.index_put", torch.index_put, args, device="cpu")


@pytest.mark.parametrize("a,b", [((3, 1), (4,)), ((3,), (3,)), ((2,), (3,))])
def test_complex_polar(a, b):
    check("torch.complex", torch.complex, (T(*a), T(*b)))
    check("torch.polar", torch.polar, (T(*a), T(*b)))
    for name in ("complex", "polar"):  # meta's check is an AssertionError: compare with CPU
        check(f"torch.{name}", getattr(torch, name), (T(*a, dtype="long"), T(*b, dtype="long")), device="cpu")


def _sym(name, *args):
    return lookup(name).fn(ConcreteContext(name), *args)


def test_symbolic_joins():
    B, N = Expr.sym("B"), Expr.sym("N")
    a, b = TensorV(Shape.of([B, 1])), TensorV(Shape.of([N]))
    out = _sym("torch.broadcast_tensors", a, b)
    assert isinstance(out, TupleV) and str(out.items[1].shape) == "[B, N]"
    assert str(_sym("torch.block_diag", TensorV(Shape.of([B, 2])), b).shape) == str(Shape.of([B + 1, N + 2]))
    assert str(_sym("torch.cartesian_prod", b, TensorV(Shape.of([B]))).shape) in ("[B*N, 2]", "[N*B, 2]")
    assert str(_sym("torch.atleast_3d", b).shape) == "[1, N, 1]"
    assert str(_sym("torch.randperm", IntV(N)).shape) == "[N]"
    halves = _sym("torch.vsplit", TensorV(Shape.of([2 * N, B])), IntV(Expr.const(2)))
    assert [str(h.shape) for h in halves.items] == ["[N, B]", "[N, B]"]
    with pytest.raises(OpFailed) as e:
        _sym("torch.hsplit", TensorV(Shape.of([B, 5])), IntV(Expr.const(2)))
    assert e.value.code == "SH107"
