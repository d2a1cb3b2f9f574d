"""Differential tests for indexing.py: x[...] against PyTorch (meta device; boolean masks on CPU)."""
import random

import pytest
import torch

from shapehint.ops.concrete import ConcreteContext, NotApplicable, OpFailed, apply, shape_of, wrap
from shapehint.ops.registry import lookup
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import TensorV, TupleV

from .diff import T, check

rng = random.Random(5)


def rand_item(size):
    k = rng.choice(["int", "int", "slice", "slice", "slice", "none", "tensor", "list", "ellipsis"])
    if k == "int":
        return rng.randint(-size - 1, size)
    if k == "slice":
        def b():
            return rng.choice([None, rng.randint(-size - 2, size + 2)])
        return slice(b(), b(), rng.choice([None, 1, 2, 3, -1] if rng.random() < 0.1 else [None, 1, 2, 3]))
    if k == "none":
        return None
    if k == "tensor":
        return T(*[rng.randint(1, 3) for _ in range(rng.randint(0 if rng.random() < 0.1 else 1, 2))], dtype="long")
    if k == "list":
        return [rng.randint(0, 0) for _ in range(rng.randint(1, 3))]  # meta does not check list bounds
    return Ellipsis


CASES = []
for _ in range(120):
    s = tuple(rng.randint(1, 5) for _ in range(rng.randint(1, 4)))
    n = rng.randint(1, len(s) + 1)
    idx = tuple(rand_item(s[min(i, len(s) - 1)]) for i in range(n))
    if any(isinstance(i, T) and i.dims == () for i in idx):
        continue  # 0-dim index tensors call .item(): not on meta
    CASES.append((s, idx if rng.random() < 0.8 or len(idx) > 1 else idx[0]))


@pytest.mark.parametrize("s,idx", CASES)
def test_getitem(s, idx):
    check("Tensor.__getitem__", lambda x, i: x[i], (T(*s), idx))


@pytest.mark.parametrize("s,idx", [((2, 3), True), ((2, 3), False), ((2, 3), (Ellipsis, Ellipsis)),
                                   ((4,), slice(None, None, 0)), ((0, 3), 0), ((0, 3), slice(1, None))])
def test_getitem_edge(s, idx):
    check("Tensor.__getitem__", lambda x, i: x[i], (T(*s), idx))


MASKS = []
for _ in range(15):
    s = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 4)))
    start = rng.randint(0, len(s) - 1)
    k = rng.randint(0, len(s) - start)
    m = list(s[start:start + k])
    if m and rng.random() < 0.2:
        m[0] += 1
    MASKS.append((s, start, tuple(m)))


@pytest.mark.parametrize("s,start,m", MASKS)
def test_bool_mask_cpu(s, start, m):
    x, mask = torch.zeros(s), torch.rand(m) > 0.5
    idx = (slice(None),) * start + (mask,)
    try:
        want = ("ok", x[idx].dim())
    except (IndexError, RuntimeError):
        want = ("error",)
    try:
        out = apply("Tensor.__getitem__", T(*s).abstract(), (slice(None),) * start + (T(*m, dtype="bool").abstract(),))
        fresh = [d for d in out.shape.dims if d.value is None]
        assert len(fresh) == 1
        got = ("ok", out.shape.rank)
    except OpFailed:
        got = ("error",)
    assert want == got


def test_masked_select_and_select():
    out = apply("torch.masked_select", T(2, 3).abstract(), T(3, dtype="bool").abstract())
    assert out.shape.rank == 1 and out.shape.dims[0].value is None
    with pytest.raises(OpFailed):
        apply("torch.masked_select", T(2, 3).abstract(), T(2, dtype="bool").abstract())
    for s, d, i in [((2, 3), 1, 2), ((2, 3), 1, 3), ((2, 3), -1, -3), ((2, 3), 2, 0), ((4,), 0, -4)]:
        check("torch.select", torch.select, (T(*s), d, i))


@pytest.mark.parametrize("s,d,ix", [((3, 4), 0, (2,)), ((3, 4), 1, (5,)), ((3, 4), -1, ()),
                                    ((), 0, (1,)), ((3, 4), 2, (1,))])
def test_index_select(s, d, ix):
    check("torch.index_select", torch.index_select, (T(*s), d, T(*ix, dtype="long")))


def test_index_select_matrix_index_cpu():
    # meta skips this check; CPU (the real behaviour) rejects a 2-D index
    with pytest.raises((RuntimeError, IndexError)):
        torch.index_select(torch.zeros(3), 0, torch.zeros(2, 2, dtype=torch.long))
    with pytest.raises(OpFailed):
        apply("torch.index_select", T(3).abstract(), 0, T(2, 2, dtype="long").abstract())


def test_take_and_setitem():
    check("torch.take", torch.take, (T(3, 4), T(2, 5, dtype="long")))
    x = T(3, 4).abstract()
    apply("Tensor.__setitem__", x, (slice(None), 0), T(3).abstract())
    apply("Tensor.__setitem__", x, (slice(None), slice(0, 2)), T(1, 2).abstract())
    with pytest.raises(OpFailed):
        apply("Tensor.__setitem__", x, (slice(None), 0), T(4).abstract())


B, Tt, C = Expr.sym("B"), Expr.sym("T"), Expr.sym("C")


class Positive(ConcreteContext):
    """Entails what holds for every symbol value in 1..8 (stands in for the solver's facts)."""

    def entails(self, pred):
        import itertools
        syms = sorted(pred.symbols())
        return all(pred.evaluate(dict(zip(syms, vals))) for vals in itertools.product(range(1, 9), repeat=len(syms)))


def test_symbolic():
    x = TensorV(Shape.of((B, Tt, C)), "float32")
    assert str(apply("Tensor.__getitem__", x, (slice(None), -1, slice(None))).shape) == "[B, C]"
    assert str(apply("Tensor.__getitem__", x, (Ellipsis, None)).shape) == "[B, T, C, 1]"
    assert str(apply("Tensor.__getitem__", x, (slice(None), slice(None, None, 2))).shape) == "[B, (T - 1)//2 + 1, C]"
    y = lookup("Tensor.__getitem__").fn(Positive("x[:, 1:]"), x, wrap((slice(None), slice(1, None))))
    assert str(y.shape) == "[B, T - 1, C]"
    u = TensorV(Shape((), "x*", ()), "float32")
    with pytest.raises(NotApplicable):  # the concrete context cannot learn a suffix
        apply("Tensor.__getitem__", u, (Ellipsis, 0))
    v = TensorV(Shape((B,), "x*", (C,)), "float32")
    assert str(apply("Tensor.__getitem__", v, (Ellipsis, 0)).shape) == "[B, *x]"
    assert str(apply("Tensor.__getitem__", v, (0, None)).shape) == "[1, *x, C]"


@pytest.mark.parametrize("idx,want", [((0, slice(None)), "[*x, C]"), ((0, slice(None), slice(None)), "[*x, C]"),
                                      ((Ellipsis, slice(None), 0), "[B, *x]"), ((slice(None), Ellipsis), "[B, *x, C]")])
def test_a_whole_slice_beside_the_unknown_middle_takes_no_dimension(idx, want):
    """`:` next to the star changes nothing, so it must not claim a dimension of it: on [B, *x, C]
    `v[0, :]` is [*x, C] for every rank, including 2 (where the `:` is C's)."""
    v = TensorV(Shape((B,), "x*", (C,)), "float32")
    assert str(apply("Tensor.__getitem__", v, idx).shape) == want
    for middle in [(), (3,), (3, 4)]:  # every rank it stands for agrees with PyTorch
        try:
            got = tuple(torch.zeros((2,) + middle + (5,), device="meta")[idx].shape)
        except IndexError:  # too many indices for this rank: the claim is about the others
            continue
        assert got == eval(want.replace("*x", "*" + repr(middle)).replace("B", "2").replace("C", "5").replace("[", "(").replace("]", ",)"))


# ---- symbolic formulas agree with concrete results ------------------------------------------

def _sym_case(k):
    r = random.Random(100 + k)
    s = tuple(r.randint(1, 6) for _ in range(r.randint(1, 3)))
    idx = []
    for d in s:
        def b():
            return r.choice([None, r.randint(-d - 1, d + 1)])
        idx.append(r.choice([slice(b(), b(), r.choice([None, 1, 2, 3])), slice(None), r.randint(-d, d - 1)]))
    return s, tuple(idx)


@pytest.mark.parametrize("k", range(30))
def test_symbolic_slices_evaluate_like_concrete(k):
    s, idx = _sym_case(k)
    names = [f"D{i}" for i in range(len(s))]
    env = dict(zip(names, s))
    want = shape_of(apply("Tensor.__getitem__", T(*s).abstract(), idx))
    sym = TensorV(Shape.of([Expr.sym(n) for n in names]), "float32")
    got = apply("Tensor.__getitem__", sym, idx)
    assert tuple(d.evaluate(env) for d in got.shape.dims) == want


def test_a_symbolic_bound_known_negative_counts_from_the_end():
    """longformer's `x[:, :, :-window_overlap]`: a size's negation is negative, so it counts from
    the end (it was clamped at 0 as if it were a start, giving max(-w, 0))."""
    from shapehint.shapes.values import IntV, SliceV
    w = Expr.sym("W")
    x = TensorV(Shape.of((B, Tt * w + w)), "float32")
    for stop, want in [(-w, lambda b, t, k: t * k), (w, lambda b, t, k: k)]:
        y = lookup("Tensor.__getitem__").fn(Positive("x[:, :-w]"), x, TupleV((SliceV(None, None, None),
                                                                              SliceV(None, IntV(stop), None))))
        for b, t, k in [(1, 1, 1), (2, 3, 4), (3, 7, 2)]:
            env = {"B": b, "T": t, "W": k}
            got = tuple(d.evaluate(env) for d in y.shape.dims)
            concrete = torch.zeros(b, t * k + k, device="meta")[:, :(-k if stop is not w else k)]
            assert got == tuple(concrete.shape) == (b, want(b, t, k))


def test_a_symbolic_bound_of_unknown_sign_is_not_guessed():
    from shapehint.shapes.values import IntV, SliceV
    n = Expr.sym("n") - 3  # n - 3 may be either sign: Python's two readings give two lengths
    x = TensorV(Shape.of((B, Tt)), "float32")
    with pytest.raises(NotApplicable):
        lookup("Tensor.__getitem__").fn(Positive("x[:, :n - 3]"), x, TupleV((SliceV(None, None, None),
                                                                              SliceV(None, IntV(n), None))))
