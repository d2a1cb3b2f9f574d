"""Differential tests for views.py: shapes and errors against PyTorch on the meta device, and
contiguity (view after transpose/permute/expand/narrow) against real strides."""
import math
import random
import warnings

import pytest
import torch

from shapehint.ops.concrete import ConcreteContext, OpFailed, NotApplicable, apply, shape_of
from shapehint.ops.registry import lookup
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import IntV, TensorV

from .diff import T, check

warnings.filterwarnings("ignore", message=".*x.T.*")


def run_chain(x: T, steps):
    """Apply Tensor methods in sequence in PyTorch and through the rules; compare shape and contiguity."""
    try:
        t = x.meta()
        for name, args, kw in steps:
            t = getattr(t, name) if name in ("T", "mT") else getattr(t, name)(*args, **kw)
        want = ("ok", tuple(t.shape), t.is_contiguous())
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        want = ("error", str(e)[:80])
    try:
        v = x.abstract()
        for name, args, kw in steps:
            v = apply("Tensor." + name, v, *args, **kw)
        got = ("ok", shape_of(v), v.contiguous)
    except OpFailed as e:
        got = ("error", e.message)
    return want, got


def check_chain(x, steps):
    want, got = run_chain(x, steps)
    assert want[0] == got[0] and (want[0] == "error" or want[1:] == got[1:]), f"{x} {steps}: torch={want} rule={got}"


def rshape(rng, lo=1, hi=4, dmax=4):
    return tuple(rng.randint(1, dmax) for _ in range(rng.randint(lo, hi)))


def factors(n):
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


def regroup(rng, dims):
    """A random target shape with the same number of elements (sometimes with -1 or wrong)."""
    atoms = [f for d in dims for f in (factors(d) or [1])]
    rng.shuffle(atoms) if rng.random() < 0.2 else None
    out, cur = [], 1
    for a in atoms:
        cur *= a
        if rng.random() < 0.5:
            out.append(cur)
            cur = 1
    if cur > 1 or not out:
        out.append(cur)
    if rng.random() < 0.3:
        out.insert(rng.randint(0, len(out)), 1)
    if rng.random() < 0.3:
        out[rng.randrange(len(out))] = -1
    if rng.random() < 0.15:
        out[rng.randrange(len(out))] += 1
    return tuple(out)


def random_prefix(rng, s):
    """Some view-producing steps that usually leave a non-contiguous tensor."""
    r = len(s)
    k = rng.choice(["transpose", "permute", "narrow", "expand", "T", "slice", "none", "movedim", "unsqueeze"])
    if k == "transpose":
        return [("transpose", (rng.randrange(r), rng.randrange(r)), {})], None
    if k == "permute":
        p = list(range(r))
        rng.shuffle(p)
        return [("permute", tuple(p), {})], None
    if k == "narrow":
        d = rng.randrange(r)
        st = rng.randint(0, s[d] - 1)
        return [("narrow", (d, st, rng.randint(1, s[d] - st)), {})], None
    if k == "expand":
        return [("unsqueeze", (0,), {}), ("expand", (rng.randint(1, 3),) + (-1,) * r, {})], None
    if k == "T":
        return [("mT" if r >= 2 else "T", (), {})], None
    if k == "movedim":
        return [("movedim", (rng.randrange(r), rng.randrange(r)), {})], None
    if k == "unsqueeze":
        return [("unsqueeze", (rng.randint(-r - 1, r),), {}), ("transpose", (0, -1), {})], None
    return [], None


def torch_shape_after(s, steps):
    t = torch.empty(s, device="meta")
    for name, args, kw in steps:
        t = getattr(t, name) if name in ("T", "mT") else getattr(t, name)(*args, **kw)
    return tuple(t.shape)


rng = random.Random(7)
VIEW_CASES = []
for _ in range(120):
    s = rshape(rng, 1, 4)
    pre, _ = random_prefix(rng, s)
    try:
        cur = torch_shape_after(s, pre)
    except Exception:
        continue
    VIEW_CASES.append((s, pre + [(rng.choice(["view", "reshape"]), regroup(rng, cur), {})]))


@pytest.mark.parametrize("s,steps", VIEW_CASES)
def test_view_after_strided(s, steps):
    check_chain(T(*s), steps)


rng2 = random.Random(11)
SIMPLE = []
for _ in range(60):
    s = rshape(rng2, 0, 4)
    r = len(s)
    name = rng2.choice(["flatten", "squeeze", "unsqueeze", "transpose", "t", "permute", "expand", "repeat",
                        "tile", "narrow", "unflatten", "movedim", "T", "mT"])
    a = rng2.randint(-r - 1, r)
    b = rng2.randint(-r - 1, r)
    if name == "flatten":
        args = (a, b)
    elif name == "squeeze":
        args = rng2.choice([(), (a,), ((a, b),)])
    elif name == "unsqueeze":
        args = (a,)
    elif name in ("transpose", "movedim"):
        args = (a, b)
    elif name == "permute":
        p = list(range(r))
        rng2.shuffle(p)
        if rng2.random() < 0.3 and p:
            p[0] = p[-1]
        args = (tuple(p),)
    elif name == "expand":
        args = tuple(rng2.choice([d, 1, 3, -1]) for d in ((1,) * rng2.randint(0, 1) + s))
    elif name in ("repeat", "tile"):
        args = (tuple(rng2.randint(1, 3) for _ in range(rng2.randint(0, r + 1))),)
    elif name == "narrow":
        args = (a, rng2.randint(-2, 3), rng2.randint(0, 3))
    elif name == "unflatten":
        args = (a, rng2.choice([(2, -1), (1, s[a] if -r <= a < r else 2), (2, 2)]))
    else:
        args = ()
    SIMPLE.append((s, name, args))


@pytest.mark.parametrize("s,name,args", SIMPLE)
def test_simple(s, name, args):
    check_chain(T(*s), [(name, args, {})])


@pytest.mark.parametrize("fn,args", [
    ("torch.reshape", (T(2, 3), (3, 2))), ("torch.reshape", (T(2, 3), (-1,))), ("torch.reshape", (T(2, 3), (4, -1))),
    ("torch.reshape", (T(0, 3), (-1, 0))), ("torch.reshape", (T(0, 3), (3, -1))), ("torch.flatten", (T(2, 3, 4), 1)),
    ("torch.flatten", (T(), )), ("torch.permute", (T(2, 3), (1, 0))), ("torch.permute", (T(2, 3), (1,))),
    ("torch.broadcast_to", (T(3, 1), (2, 3, 4))), ("torch.broadcast_to", (T(3, 2), (3, 4))),
    ("torch.movedim", (T(2, 3, 4), (0, 1), (2, 0))), ("torch.movedim", (T(2, 3, 4), (0, 1), (2,))),
    ("torch.swapaxes", (T(2, 3, 4), 0, 2)), ("torch.squeeze", (T(1, 3, 1), (0, 2))),
    ("torch.tile", (T(2, 3), (2,))), ("torch.tile", (T(2,), (2, 2, 2))), ("torch.narrow", (T(5, 3), 0, -2, 2)),
    ("torch.unflatten", (T(2, 12), 1, (3, -1))), ("torch.unflatten", (T(2, 12), 1, (5, -1))),
    ("torch.t", (T(2, 3, 4),)), ("torch.t", (T(3,),)),
])
def test_functional(fn, args):
    check(fn, eval(fn), args)


def test_view_as_expand_as():
    check("Tensor.view_as", torch.Tensor.view_as, (T(2, 6), T(3, 4)))
    check("Tensor.view_as", torch.Tensor.view_as, (T(2, 6), T(3, 5)))
    check("Tensor.reshape_as", torch.Tensor.reshape_as, (T(2, 6), T(4, 3)))
    check("Tensor.expand_as", torch.Tensor.expand_as, (T(3, 1), T(2, 3, 4)))
    check("Tensor.expand_as", torch.Tensor.expand_as, (T(3, 2), T(2, 3, 4)))


def test_contiguous_restores():
    x = apply("Tensor.transpose", T(2, 3, 4).abstract(), 1, 2)
    assert not x.contiguous and "transposed" in x.layout_note
    y = apply("Tensor.contiguous", x)
    assert apply("Tensor.view", y, 2, 12).contiguous
    with pytest.raises(OpFailed) as e:
        apply("Tensor.view", x, 2, 12)
    assert e.value.code == "SH104"


# ---- symbolic --------------------------------------------------------------------------------
B, Tt, C = Expr.sym("B"), Expr.sym("T"), Expr.sym("C")


def sym(*dims):
    return TensorV(Shape.of(dims), "float32")


def test_symbolic_view_split_heads():
    x = sym(B, Tt, C)
    y = apply("Tensor.view", x, IntV(B), IntV(Tt), 12, IntV(C // 12))
    assert str(y.shape) == "[B, T, 12, C//12]"
    z = apply("Tensor.view", x, IntV(B), IntV(Tt), 12, -1)
    assert str(z.shape) == "[B, T, 12, C//12]"
    w = apply("Tensor.transpose", z, 1, 2)
    assert str(w.shape) == "[B, 12, T, C//12]" and not w.contiguous
    assert str(apply("Tensor.reshape", w, IntV(B), -1).shape) == "[B, 12*T*(C//12)]"


def test_symbolic_view_after_transpose_rescue():
    # [B, T, C].transpose(0, 1).view(T*B, C) is legal when B == 1 or T == 1: not a provable error
    cx = ConcreteContext("x.view")
    from shapehint.ops.families.views import view
    from shapehint.ops.families.permutations import transpose
    x = transpose(cx, sym(B, Tt, C), IntV(Expr.const(0)), IntV(Expr.const(1)))
    y = view(cx, x, IntV(Tt * B), IntV(C))
    assert str(y.shape) == "[B*T, C]"


def test_symbolic_view_wrong_count():
    with pytest.raises(OpFailed) as e:
        apply("Tensor.view", sym(5, 6), 4, -1)
    assert e.value.code == "SH103" and "30" in e.value.message
    assert str(apply("Tensor.view", sym(B, 6), -1, 3).shape) == "[2*B, 3]"
    assert str(apply("Tensor.flatten", sym(B, Tt, C), 1).shape) == "[B, C*T]"


def test_squeeze_warning():
    cx = ConcreteContext("x.squeeze()")
    out = lookup("Tensor.squeeze").fn(cx, sym(B, 1, C))
    assert str(out.shape) == "[B, C]" and cx.warnings and cx.warnings[0][0] == "SH202"
    cx = ConcreteContext("x.T")
    out = lookup("Tensor.T").fn(cx, sym(B, Tt, C))
    assert str(out.shape) == "[C, T, B]" and cx.warnings[0][0] == "SH203"


def test_symbolic_expand():
    assert str(apply("Tensor.expand", sym(1, C), IntV(B), -1).shape) == "[B, C]"
    with pytest.raises(OpFailed):
        apply("Tensor.expand", sym(3, C), 4, -1)


def test_unknown_rank():
    x = TensorV(Shape((), "x*", ()), "float32")
    assert str(apply("Tensor.view", x, IntV(B), 3).shape) == "[B, 3]"
    # the size inferred from elements of unknown number is unknown; the rank and the other
    # sizes are the ones asked for, as torch gives them for every rank
    flat = apply("Tensor.view", x, -1, 3).shape
    assert flat.rank == 2 and str(flat.dims[0]) .startswith("?") and flat.dims[1].value == 3
    for dims in ((6,), (2, 3), (4, 1, 3)):
        assert tuple(torch.zeros(dims).view(-1, 3).shape)[1:] == (3,)


@pytest.mark.parametrize("k", range(30))
def test_symbolic_reshape_evaluates_like_concrete(k):
    r = random.Random(200 + k)
    s = tuple(r.randint(1, 4) for _ in range(r.randint(1, 4)))
    names = [f"D{i}" for i in range(len(s))]
    env = dict(zip(names, s))
    sym = TensorV(Shape.of([Expr.sym(n) for n in names]), "float32")
    conc = T(*s).abstract()
    # a target made of the input's sizes, regrouped, with one of them replaced by -1
    groups, cur = [], []
    for i in range(len(s)):
        cur.append(i)
        if r.random() < 0.5:
            groups.append(cur)
            cur = []
    if cur:
        groups.append(cur)
    hole = r.randrange(len(groups))
    sym_args = [-1 if g == hole else IntV(Expr.lift(_prod([Expr.sym(names[i]) for i in grp])))
                for g, grp in enumerate(groups)]
    conc_args = [-1 if g == hole else _prod([s[i] for i in grp]) for g, grp in enumerate(groups)]
    name = r.choice(["Tensor.view", "Tensor.reshape"])
    want = shape_of(apply(name, conc, *conc_args))
    got = apply(name, sym, *sym_args)
    assert tuple(d.evaluate(env) for d in got.shape.dims) == want
    assert all(d.symbols() <= set(names) for d in got.shape.dims)
    assert not any("//" in str(d) for d in got.shape.dims)  # the inferred size cancels exactly


def _prod(xs):
    out = 1
    for x in xs:
        out = out * x
    return out


class Recording(ConcreteContext):
    """Records the predicates a rule requires (the analysis would hand them to the solver)."""

    def __init__(self, name):
        super().__init__(name)
        self.required = []

    def require(self, pred, message, code="SH101", related=()):
        self.required.append((code, pred))
        super().require(pred, message, code, related)


def test_symbolic_view_after_transpose_needs_a_unit_dim():
    from shapehint.ops.families.permutations import transpose
    from shapehint.ops.families.views import view
    H = 12
    cx = Recording("y.view(B, T, C)")
    x = TensorV(Shape.of((B, Tt, C)), "float32")
    heads = view(cx, x, IntV(B), IntV(Tt), IntV(Expr.const(H)), IntV(C // H))
    y = transpose(cx, heads, IntV(Expr.const(1)), IntV(Expr.const(2)))  # [B, 12, T, C//12]
    view(cx, y, IntV(B), IntV(Tt), IntV(C))
    (pred,) = [p for code, p in cx.required if code == "SH104"]
    # the predicate holds exactly for the sizes where PyTorch accepts the view
    for b_, t_, c_ in [(2, 5, 48), (2, 1, 48), (2, 5, 12), (1, 5, 48), (1, 1, 12), (3, 2, 24)]:
        try:
            torch.empty(b_, t_, c_, device="meta").view(b_, t_, H, c_ // H).transpose(1, 2).view(b_, t_, c_)
            ok = True
        except RuntimeError:
            ok = False
        assert pred.evaluate({"B": b_, "T": t_, "C": c_}) == ok, (b_, t_, c_)


def test_an_inferred_size_divides_only_by_the_factors_it_did_not_cancel():
    """diffusers' SelfAttention1d: `x.view(B, T, C // 32, -1)`. B and T cancel against x's
    elements, `C // 32` does not: the -1 is C // (C // 32) — it was C // (B*T*(C // 32)), and the
    divisibility it required made every sequence longer than 2 "impossible"."""
    from shapehint.analysis.api import analyze_source
    text = ("import torch\n\n\ndef f(x: torch.Tensor):\n    B, T, C = x.shape\n"
            "    y = x.view(B, T, C // 32, -1)\n    return y\n")
    (shape,) = {v.shape for v in analyze_source(text, "v.py").values if v.name == "y"}
    for b, t, c in [(1, 1, 32), (2, 5, 64), (3, 7, 96), (2, 9, 40), (4, 3, 128)]:
        want = tuple(torch.empty(b, t, c, device="meta").view(b, t, c // 32, -1).shape)
        env = {"B": b, "T": t, "C": c}
        assert tuple(d.evaluate(env) for d in shape.dims) == want


POOLED = '''import math

import torch.nn as nn


class Pool(nn.Module):
    def __init__(self, image_size, patch):
        super().__init__()
        self.side = image_size // patch

    def forward(self, feats):
        n, seq, dim = feats.shape
        x = feats.view(n, self.side, self.side, -1).permute(0, 3, 1, 2).contiguous()
        h, w = x.shape[2:]
        x = nn.functional.interpolate(x, size=[math.ceil(h / 2), math.ceil(w / 2)], mode="bilinear")
        return x.permute(0, 2, 3, 1).view(n, -1, dim)
'''


def test_a_view_that_fails_only_for_sizes_it_cannot_tell_apart_is_no_error():
    """A pooled feature map viewed back to [n, -1, dim] after a permute: the view is legal when the
    channels the first view's -1 left are `dim` (seq == side*side, as every real input has), which
    the analysis cannot prove; it failed for every input when the float sizes became exact."""
    from shapehint.analysis.api import analyze_source
    assert [d.code for d in analyze_source(POOLED, "pooled.py").diagnostics if d.severity == "error"] == []
    scope: dict = {}
    exec(compile(POOLED, "pooled.py", "exec"), scope)
    for size, patch, dim in [(32, 4, 6), (28, 4, 3), (16, 8, 5)]:
        side = size // patch
        out = scope["Pool"](size, patch)(torch.zeros(2, side * side, dim))
        assert out.shape == (2, math.ceil(side / 2) ** 2, dim)


def test_a_squeeze_warning_names_an_unknown_size_by_its_axis_never_by_an_internal_symbol():
    """(The tree check said "also removes ?inferred81 - window_size + 1 of ... [1, 1, ?]".)"""
    text = ("import torch\nimport torch.nn.functional as F\n\n\ndef smooth(x: torch.Tensor, k: int):\n"
            "    y = F.conv1d(x.view(1, 1, -1), torch.ones(1, 1, k))\n    return y.squeeze()\n")
    from shapehint.analysis.api import analyze_source
    got = [(d.line, d.code, d.message) for d in analyze_source(text, "smooth.py").diagnostics]
    assert got == [(7, "SH202", "y.squeeze() without a dim also removes axis 2 of y [1, 1, ?] when it is 1; "
                                "pass the dim to squeeze")], got
