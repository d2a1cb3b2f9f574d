"""Differential tests: pointwise ternaries, in-place fills, conjugate transposes, sliding windows, strides and
metadata methods against PyTorch (meta device unless noted)."""
import random

import pytest
import torch

from shapehint.ops.concrete import ConcreteContext, OpFailed, apply
from shapehint.ops.registry import lookup
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import BoolV, IntV, NoneV, TensorV, TupleV, UnknownV

from .diff import T, check

rng = random.Random(31)


def shape(lo=0, hi=3, top=4):
    return tuple(rng.randint(1, top) for _ in range(rng.randint(lo, hi)))


def near(s):
    """A shape that broadcasts with s most of the time."""
    out = [d if rng.random() < 0.6 else rng.choice([1, d + 1]) for d in s]
    return tuple(out[rng.randint(0, len(out)):]) if rng.random() < 0.3 else tuple(out)


@pytest.mark.parametrize("k", range(20))
def test_pointwise_ternary(k):
    a = shape()
    b, c = near(a), near(a)
    check("torch.lerp", torch.lerp, (T(*a), T(*b), rng.choice([0.5, T(*c)])))
    check("Tensor.lerp_", torch.Tensor.lerp_, (T(*a), T(*b), 0.3))
    check("torch.addcmul", torch.addcmul, (T(*a), T(*b), T(*c)), {"value": 2})
    check("Tensor.addcdiv", torch.Tensor.addcdiv, (T(*a), T(*b), T(*c)))
    check("Tensor.addcmul_", torch.Tensor.addcmul_, (T(*a), T(*b), T(*c)))
    check("torch.rsub", torch.rsub, (T(*a), T(*b)))
    check("Tensor.where", torch.Tensor.where, (T(*a), T(*b, dtype="bool"), T(*c)))
    check("Tensor.copy_", torch.Tensor.copy_, (T(*a), T(*b)))
    # the meta kernel does not expand p: compare with CPU
    check("Tensor.bernoulli_", torch.Tensor.bernoulli_, (T(*a), T(*b)), device="cpu")


def test_addcdiv_integer():
    check("torch.addcdiv", torch.addcdiv, (T(3), T(3, dtype="long"), T(3, dtype="long")))
    check("torch.addcdiv", torch.addcdiv, (T(3), T(3, dtype="long"), T(3)))


@pytest.mark.parametrize("k", range(6))
def test_same_shape_methods(k):
    s = shape()
    check("Tensor.type_as", torch.Tensor.type_as, (T(*s), T(2, dtype="long")))
    check("torch.isfinite", torch.isfinite, (T(*s),))
    check("Tensor.isfinite", torch.Tensor.isfinite, (T(*s),))
    check("torch.bernoulli", torch.bernoulli, (T(*s),))
    for name in ("random_", "exponential_", "geometric_", "cauchy_", "log_normal_"):
        args = (0.5,) if name == "geometric_" else ()
        check(f"Tensor.{name}", getattr(torch.Tensor, name), (T(*s), *args))
    assert apply("Tensor.type_as", T(*s).abstract(), T(2, dtype="long").abstract()).dtype == "int64"


@pytest.mark.parametrize("s,p,dim,maxnorm", [((3, 4), 2, 0, 1.0), ((3, 4), 0, 0, 1.0), ((4,), 2, 0, 1.0),
                                             ((2, 3, 4), 1, -1, 5.0), ((3, 4), 2, 2, 1.0), ((3, 4), 2, 1, -1.0)])
def test_renorm(s, p, dim, maxnorm):
    check("torch.renorm", torch.renorm, (T(*s), p, dim, maxnorm))


@pytest.mark.parametrize("k", range(24))
def test_unfold_windows(k):
    s = shape(0, 3, 7)
    r = max(len(s), 1)
    d = rng.randint(-r, r)
    size = rng.randint(0, 8)
    step = rng.choice([1, 2, 3, 0])
    check("Tensor.unfold", torch.Tensor.unfold, (T(*s), d, size, step))


@pytest.mark.parametrize("s,d,size,step", [((4, 6), 1, 3, 2), ((4, 6), 0, 2, 1), ((5,), 0, 2, 2), ((), 0, 1, 1),
                                           ((8, 3, 8), -1, 4, 4)])
def test_unfold_strides(s, d, size, step):
    from shapehint.ops.concrete import shape_of, wrap
    want = tuple(T(*s).meta().unfold(d, size, step).stride())
    want_t = tuple(T(*s).meta().transpose(0, -1).unfold(d, size, step).stride()) if len(s) >= 2 else None
    v = apply("Tensor.unfold", T(*s).abstract(), d, size, step)
    assert shape_of(apply("Tensor.stride", v)) == tuple(("int", i) for i in want)
    if want_t is not None:
        tv = apply("Tensor.transpose", T(*s).abstract(), 0, -1)
        v = lookup("Tensor.unfold").fn(ConcreteContext("unfold"), tv, wrap(d), wrap(size), wrap(step))
        assert shape_of(apply("Tensor.stride", v)) == tuple(("int", i) for i in want_t)


@pytest.mark.parametrize("s", [(), (3,), (3, 4), (2, 3, 4)])
def test_conjugate_transposes(s):
    check("Tensor.H", lambda x: x.H, (T(*s),))
    check("Tensor.mH", lambda x: x.mH, (T(*s),))
    check("torch.adjoint", torch.adjoint, (T(*s),))
    check("Tensor.t_", torch.Tensor.t_, (T(*s),), device="cpu")  # meta's t_ raises AssertionError


@pytest.mark.parametrize("s,size,stride", [((3, 4), (2, 2), (1, 2)), ((12,), (3, 4), (4, 1)), ((12,), (3, 4), (4,))])
def test_as_strided(s, size, stride):
    check("torch.as_strided", torch.as_strided, (T(*s), size, stride))
    check("Tensor.as_strided", torch.Tensor.as_strided, (T(*s), size, stride))


@pytest.mark.parametrize("k", range(16))
def test_rot90(k):
    s = shape(1, 4)
    dims = rng.choice([[0, 1], [1, 0], [-1, 0], [0, -2], [1, 1], [0, 1, 2], [0, 2]])
    check("torch.rot90", torch.rot90, (T(*s), rng.randint(-3, 5), dims))


@pytest.mark.parametrize("s", [(3,), (3, 2), (2,), (4, 5, 2), ()])
def test_view_as_real_complex(s):
    check("torch.view_as_complex", torch.view_as_complex, (T(*s),))
    check("torch.view_as_real", torch.view_as_real, (T(*s, dtype="cfloat"),))
    check("torch.view_as_real", torch.view_as_real, (T(*s),))


@pytest.mark.parametrize("s,size", [((3, 4), (1, 4)), ((3, 4), (4,)), ((3, 4), (2, 4)), ((3, 4), (1, 3, 4)),
                                    ((2, 3, 4), (3, 1)), ((2, 3, 4), ()), ((3, 4), (3, 4))])
def test_sum_to_size(s, size):
    check("Tensor.sum_to_size", torch.Tensor.sum_to_size, (T(*s), *size))
    check("Tensor.sum_to_size", torch.Tensor.sum_to_size, (T(*s), size))


@pytest.mark.parametrize("s,new", [((3, 4), (2, 5)), ((3,), (2, 3, 4)), ((3, 4), (-1, 2))])
def test_resize(s, new):
    check("Tensor.resize_", torch.Tensor.resize_, (T(*s), *new))
    check("Tensor.resize_as_", torch.Tensor.resize_as_, (T(*s), T(*[abs(i) for i in new])))


@pytest.mark.parametrize("chain", [[], [("Tensor.transpose", (0, 1))], [("Tensor.permute", (2, 0, 1))],
                                   [("Tensor.expand", (2, 3, 4))], [("Tensor.narrow", (2, 1, 2))],
                                   [("Tensor.transpose", (1, 2)), ("Tensor.reshape", (6, 4))]])
def test_stride_and_contiguity(chain):
    from shapehint.ops.concrete import shape_of, wrap
    x = torch.empty((2, 3, 4) if not chain or chain[0][0] != "Tensor.expand" else (1, 3, 4), device="meta")
    v = T(*x.shape).abstract()
    for name, args in chain:
        x = getattr(torch.Tensor, name.split(".")[1])(x, *args)
        v = lookup(name).fn(ConcreteContext(name), v, *[wrap(a) for a in args])
    assert shape_of(apply("Tensor.stride", v)) == tuple(("int", i) for i in x.stride())
    assert shape_of(apply("Tensor.stride", v, -1)) == ("int", x.stride(-1))
    c = apply("Tensor.is_contiguous", v)
    assert isinstance(c, BoolV) and c.pred is not None and c.pred.is_true == x.is_contiguous()


def test_metadata_results():
    x = T(2, 3).abstract()
    assert apply("Tensor.element_size", x).expr.value == 4
    assert apply("Tensor.element_size", T(2, dtype="long").abstract()).expr.value == 8
    assert isinstance(apply("Tensor.data_ptr", x), UnknownV)
    assert isinstance(apply("Tensor.storage_offset", x), UnknownV)
    assert isinstance(apply("Tensor.numpy", x), UnknownV)
    assert isinstance(apply("Tensor.retain_grad", x), NoneV)
    with pytest.raises(OpFailed):
        apply("Tensor.stride", x, 2)


def _sym(name, *args):
    return lookup(name).fn(ConcreteContext(name), *args)


def test_symbolic_methods():
    B, L = Expr.sym("B"), Expr.sym("L")
    x = TensorV(Shape.of([B, L]), "float32")
    w = _sym("Tensor.unfold", x, IntV(Expr.const(1)), IntV(Expr.const(4)), IntV(Expr.const(2)))
    assert w.shape.dims[0] == B and w.shape.dims[2].value == 4 and w.shape.dims[1].symbols() == {"L"}
    xt = _sym("Tensor.transpose", x, IntV(Expr.const(0)), IntV(Expr.const(1)))
    assert _sym("Tensor.is_contiguous", xt).pred is None  # B or L may be 1
    assert _sym("Tensor.is_contiguous", x).pred.is_true
    st = _sym("Tensor.stride", x)
    assert isinstance(st, TupleV) and str(st.items[0].expr) == "L"
    assert str(_sym("Tensor.H", x).shape) == "[L, B]"
    assert str(_sym("Tensor.lerp", x, TensorV(Shape.of([L])), TensorV(Shape.of([1]))).shape) == "[B, L]"
    with pytest.raises(OpFailed) as e:
        _sym("Tensor.copy_", TensorV(Shape.of([L])), x)
    assert e.value.code == "SH106"
    with pytest.raises(OpFailed) as e:
        _sym("Tensor.H", TensorV(Shape.of([B, L, 3])))
    assert e.value.code == "SH102"


@pytest.mark.parametrize("convert", ["x.to(torch.long)", "x.to('cpu', torch.float16)", "x.to(dtype=torch.int32)",
                                     "x.to(o)", "x.type(torch.bool)", "x.to('cpu')", "x.float().to(torch.long)"])
def test_to_and_type_give_the_dtype_they_convert_to(convert):
    """transformers' MPNet: `(n < 0).to(torch.long)` stayed bool, so the buckets it fed to an
    nn.Embedding looked like floats (an error no input could avoid, on code that runs)."""
    from shapehint.analysis.api import analyze_source
    x, o = torch.zeros(2, 3) > 0, torch.zeros(1, dtype=torch.int64)
    want = str(eval(convert, {"torch": torch, "x": x, "o": o}).dtype).replace("torch.", "")
    text = ("import torch\n\n\ndef f(a: torch.Tensor, o: torch.Tensor):\n    x = a > 0\n"
            f"    o = o.long()\n    y = {convert}\n    return y\n")
    assert {v.dtype for v in analyze_source(text, "to.py").values if v.name == "y"} == {want}
