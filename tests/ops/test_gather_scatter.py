"""Differential tests for gather_scatter.py on small CPU tensors (index values are zeros, so always in
range; meta kernels skip some checks), and data-dependent ops: rank matches, sizes are symbols."""
import random

import pytest
import torch

from shapehint.ops.concrete import OpFailed, apply
from shapehint.shapes.values import TupleV

from .diff import T, run_rule, torch_shape

rng = random.Random(21)
DT = {"float": torch.float32, "long": torch.int64, "bool": torch.bool, "int": torch.int32}


def _cpu(v):
    if isinstance(v, T):
        return torch.zeros(v.dims, dtype=DT[v.dtype])
    return v


def check_cpu(name, fn, args=(), kwargs=None):
    kwargs = kwargs or {}
    try:
        want = ("ok", torch_shape(fn(*[_cpu(a) for a in args], **kwargs)))
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        want = ("error", str(e)[:100])
    got = run_rule(name, args, kwargs)
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), f"{name}{args}{kwargs}: torch={want} rule={got}"


def near(s, p=0.3):
    out = list(s)
    for i in range(len(out)):
        if rng.random() < p:
            out[i] = max(0 if rng.random() < 0.1 else 1, out[i] + rng.choice([-1, 1]))
    if rng.random() < 0.1:
        out.append(2)
    return tuple(out)


CASES = []
for _ in range(70):
    s = tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 3)))
    r = len(s)
    d = rng.randint(-r - 1, r) if r else rng.choice([0, -1, 1])
    k = rng.choice(["gather", "scatter", "scatter_add", "scatter_value", "index_add", "index_copy", "index_fill",
                    "take_along_dim", "take_along_none"])
    idt = rng.choice(["long"] * 6 + ["int", "float"])
    if k == "gather":
        CASES.append(("torch.gather", torch.gather, (T(*s), d, T(*near(s), dtype=idt)), {}))
    elif k in ("scatter", "scatter_add"):
        i = near(s)
        CASES.append((f"torch.{k}", getattr(torch, k), (T(*s), d, T(*i, dtype=idt), T(*near(i))), {}))
    elif k == "scatter_value":
        CASES.append(("torch.scatter", torch.scatter, (T(*s), d, T(*near(s), dtype=idt)), {"value": 1.0}))
    elif k in ("index_add", "index_copy"):
        n = rng.randint(1, 3)
        src = list(s)
        if src and -r <= d < r:
            src[d] = n
        CASES.append((f"torch.{k}", getattr(torch, k), (T(*s), d, T(n, dtype=idt), T(*near(src, 0.15))), {}))
    elif k == "index_fill":
        CASES.append(("torch.index_fill", torch.index_fill, (T(*s), d, T(rng.randint(1, 3), dtype=idt), 1.0), {}))
    elif k == "take_along_dim":
        i = list(near(s))
        if i and rng.random() < 0.5:
            i[rng.randrange(len(i))] = 1
        CASES.append(("torch.take_along_dim", torch.take_along_dim, (T(*s), T(*i, dtype=idt), d), {}))
    else:
        CASES.append(("torch.take_along_dim", torch.take_along_dim, (T(*s), T(*near(s), dtype=idt)), {}))


@pytest.mark.parametrize("name,fn,args,kw", CASES)
def test_gather_scatter(name, fn, args, kw):
    if name == "torch.scatter" and "value" in kw:
        fn = lambda x, d, i, value: torch.scatter(x, d, i, value)  # noqa: E731
    check_cpu(name, fn, args, kw)


def test_scatter_reduce_and_masked_scatter():
    check_cpu("torch.scatter_reduce", torch.scatter_reduce, (T(3, 4), 1, T(2, 2, dtype="long"), T(2, 3), "sum"))
    check_cpu("torch.scatter_reduce", torch.scatter_reduce, (T(3, 4), 1, T(2, 2, dtype="long"), T(2, 1), "amax"))
    check_cpu("torch.masked_scatter", torch.masked_scatter, (T(3, 4), T(4, dtype="bool"), T(12)))
    check_cpu("torch.masked_scatter", torch.masked_scatter, (T(3, 4), T(3, dtype="bool"), T(12)))


def fresh_dims(v):
    return [d for d in v.shape.dims if d.value is None]


DATA = []
for _ in range(12):
    s = tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 3)))
    DATA.append(s)


@pytest.mark.parametrize("s", DATA)
def test_data_dependent(s):
    x = (torch.rand(s) > 0.5).float()
    a = T(*s).abstract()
    assert apply("torch.nonzero", a).shape.rank == torch.nonzero(x).dim()
    assert apply("torch.nonzero", a).shape.dims[1].value == len(s) and len(fresh_dims(apply("torch.nonzero", a))) == 1
    tup = apply("torch.nonzero", a, as_tuple=True)
    assert len(tup.items) == len(torch.nonzero(x, as_tuple=True))
    assert apply("torch.argwhere", a).shape.rank == torch.argwhere(x).dim()
    w = apply("torch.where", a)
    assert isinstance(w, TupleV) and len(w.items) == len(torch.where(x))
    u, inv, cnt = apply("torch.unique", a, return_inverse=True, return_counts=True).items
    tu, tinv, tcnt = torch.unique(x, return_inverse=True, return_counts=True)
    assert (u.shape.rank, inv.shape.rank, cnt.shape.rank) == (tu.dim(), tinv.dim(), tcnt.dim())
    assert tuple(d.value for d in inv.shape.dims) == tuple(tinv.shape)
    if s:
        d = rng.randrange(len(s))
        u2 = apply("torch.unique", a, dim=d)
        assert u2.shape.rank == torch.unique(x, dim=d).dim() and len(fresh_dims(u2)) == 1


def test_where_three_args_still_broadcasts():
    assert apply("torch.where", T(2, 1, dtype="bool").abstract(), T(3).abstract(), T(2, 3).abstract()).shape.rank == 2
    with pytest.raises(OpFailed):
        apply("torch.where", T(2, 1, dtype="bool").abstract(), T(3).abstract(), T(2, 4).abstract())
    assert apply("torch.bincount", T(5, dtype="long").abstract()).shape.rank == 1
    check_cpu("torch.histc", torch.histc, (T(5), 7))


def test_unique_of_an_input_of_unknown_rank_is_one_dimensional():
    """Flattened unless a dim is given, so 1-D whatever the input (timm's RegNet uniques a
    `torch.tensor(widths)` of a list it cannot size); torch: a 0-d or 3-d input alike."""
    from shapehint.shapes.shape import Shape
    from shapehint.shapes.values import TensorV
    x = TensorV(Shape.unknown("s"), "int64")
    u, inv, cnt = apply("torch.unique", x, return_inverse=True, return_counts=True).items
    assert (u.shape.rank, cnt.shape.rank, inv.shape.rank) == (1, 1, None)
    assert u.shape.dims == cnt.shape.dims
    for t in (torch.tensor(3), torch.zeros(2, 3, 4, dtype=torch.long)):
        assert torch.unique(t).dim() == 1 and torch.unique(t, return_counts=True)[1].dim() == 1
    from shapehint.ops.context import NotApplicable
    with pytest.raises(NotApplicable):
        apply("torch.unique", x, dim=0)  # (a dim of an unknown rank: no rule applies)
