"""Differential tests for joins.py (cat/stack/split/chunk/unbind/tensor_split/meshgrid)."""
import random

import pytest
import torch

from shapehint.ops.concrete import apply
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import IntV, ListV, TensorV

from .diff import T, check

rng = random.Random(3)


def rshape(lo=1, hi=4, dmax=4, zero=False):
    return tuple(rng.randint(0 if zero else 1, dmax) for _ in range(rng.randint(lo, hi)))


def cat_case():
    s = list(rshape(0, 3))
    n = rng.randint(1, 3)
    d = rng.randint(-len(s) - 1, len(s))
    ts = []
    for _ in range(n):
        t = list(s)
        if t and -len(t) <= d < len(t):
            t[d] = rng.randint(1, 4)
        if rng.random() < 0.15 and t:
            t[rng.randrange(len(t))] += 1
        if rng.random() < 0.1:
            t = t + [2]
        ts.append(T(*t))
    if rng.random() < 0.1:
        ts.append(T(0))
    return ts, d


CAT = [cat_case() for _ in range(40)]


@pytest.mark.parametrize("ts,d", CAT)
def test_cat(ts, d):
    check("torch.cat", torch.cat, (ts, d))


@pytest.mark.parametrize("ts,d", CAT[:25])
def test_stack(ts, d):
    check("torch.stack", torch.stack, (ts, d))


@pytest.mark.parametrize("ts", [[T(2), T(3)], [T(2, 3), T(2, 1)], [T(), T(2)], [T(2, 3), T(3, 3)], [T(2, 3, 4), T(2, 1, 4)]])
@pytest.mark.parametrize("fn", ["hstack", "vstack", "dstack"])
def test_hvdstack(ts, fn):
    check(f"torch.{fn}", getattr(torch, fn), (ts,))


SPLIT = []
for _ in range(40):
    s = rshape(0, 3, 6, zero=rng.random() < 0.1)
    d = rng.randint(-len(s) - 1, len(s))
    k = rng.choice(["int", "list", "chunk", "tsplit_int", "tsplit_list", "unbind"])
    if k == "int":
        SPLIT.append(("torch.split", torch.split, (T(*s), rng.randint(0, 4), d)))
    elif k == "list":
        size = s[d] if s and -len(s) <= d < len(s) else 3
        parts = []
        while sum(parts) < size:
            parts.append(rng.randint(1, size - sum(parts)))
        if rng.random() < 0.3:
            parts.append(1)
        SPLIT.append(("torch.split", torch.split, (T(*s), parts, d)))
    elif k == "chunk":
        SPLIT.append(("torch.chunk", torch.chunk, (T(*s), rng.randint(0, 5), d)))
    elif k == "tsplit_int":
        SPLIT.append(("torch.tensor_split", torch.tensor_split, (T(*s), rng.randint(0, 5), d)))
    elif k == "tsplit_list":
        SPLIT.append(("torch.tensor_split", torch.tensor_split, (T(*s), [rng.randint(-3, 6) for _ in range(rng.randint(0, 3))], d)))
    else:
        SPLIT.append(("torch.unbind", torch.unbind, (T(*s), d)))


@pytest.mark.parametrize("name,fn,args", SPLIT)
def test_split(name, fn, args):
    check(name, fn, args)


@pytest.mark.parametrize("ts,ix", [((T(2), T(3)), "ij"), ((T(2), T(3), T(4)), "xy"), ((T(), T(3)), "ij"), ((T(2, 2),), "ij")])
def test_meshgrid(ts, ix):
    check("torch.meshgrid", torch.meshgrid, ts, {"indexing": ix})


def test_symbolic_split_qkv():
    B, Tt, C = Expr.sym("B"), Expr.sym("T"), Expr.sym("C")
    x = TensorV(Shape.of((B, Tt, 3 * C)), "float32")
    q, k, v = apply("Tensor.split", x, IntV(C), dim=2).items
    assert str(q.shape) == "[B, T, C]"
    a, b, c = apply("Tensor.chunk", x, 3, -1).items
    assert str(c.shape) == "[B, T, C]"
    y = apply("torch.cat", [q, k], dim=-1)
    assert str(y.shape) == "[B, T, 2*C]"
    assert str(apply("torch.stack", (q, k, v), 1).shape) == "[B, 3, T, C]"
    assert isinstance(apply("Tensor.unbind", x, 0), ListV)
    assert len(apply("Tensor.unbind", TensorV(Shape.of((B, 3)), "float32"), 1).items) == 3


def test_symbolic_chunk_uneven():
    import itertools

    from shapehint.ops.concrete import ConcreteContext
    from shapehint.ops.registry import lookup

    class Positive(ConcreteContext):
        def entails(self, pred):
            syms = sorted(pred.symbols())
            return all(pred.evaluate(dict(zip(syms, v))) for v in itertools.product(range(2, 9), repeat=len(syms)))

    C = Expr.sym("C")
    a, b = lookup("torch.chunk").fn(Positive("x.chunk(2)"), TensorV(Shape.of((4, C)), "float32"), IntV(Expr.const(2)),
                                    IntV(Expr.const(1))).items
    for c in range(2, 9):
        want = [t.shape[1] for t in torch.empty(4, c, device="meta").chunk(2, 1)]
        assert [a.shape.dims[1].evaluate({"C": c}), b.shape.dims[1].evaluate({"C": c})] == want


def test_list_built_in_a_loop():
    # `outs.append(h)` in `for t in range(T)` gives a list of T tensors whose items are not tracked
    Tn = Expr.sym("T")
    h = TensorV(Shape.of((Expr.sym("B"), 96)), "float32")
    outs = ListV(None, h)
    outs.length = Tn
    assert str(apply("torch.stack", outs, dim=1).shape) == "[B, T, 96]"
    assert str(apply("torch.cat", outs, dim=-1).shape) == "[B, 96*T]"


def test_cat_learns_rank_of_unknown_operand_only_where_it_cannot_be_the_empty_tensor():
    """An operand of unknown rank may be `torch.zeros(0)`, which cat skips (ops/empty_operands.py):
    its rank is not learned and the joined axis not summed; with two axes known it is learned."""
    from shapehint.ops.concrete import ConcreteContext
    from shapehint.ops.registry import lookup

    class Learning(ConcreteContext):
        def learn_rank(self, t, rank):
            t.shape = Shape.of([Expr.sym(f"?{i}") for i in range(rank)])  # gradual dims, as the analysis learns them
            return t.shape.dims

    skip = TensorV(Shape((), "skip*", ()), "float32")
    x = TensorV(Shape.of((Expr.sym("B"), 4, Expr.sym("H"), Expr.sym("W"))), "float32")
    out = lookup("torch.cat").fn(Learning("cat"), ListV([skip, x]), IntV(Expr.const(1)))
    assert str(out.shape) == "[B, ?, H, W]" and skip.shape.rank is None
    assert out.shape.dims[1].value is None and not out.shape.dims[1].symbols() & {"?1"}
    grid = TensorV(Shape((), "grid*", (Expr.sym("H"), Expr.sym("W"))), "float32")  # [*, H, W]: not 1-D
    out = lookup("torch.cat").fn(Learning("cat"), ListV([grid, x]), IntV(Expr.const(1)))
    assert grid.shape.rank == 4 and str(out.shape.dims[1]) == "?1 + 4"
