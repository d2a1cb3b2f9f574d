"""Differential tests for einops_rules.py against einops itself (on meta tensors)."""
import random

import einops
import pytest
import torch
from einops.layers.torch import Rearrange, Reduce

from shapehint.ops.concrete import apply
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import IntV, TensorV

from .diff import T, check, check_module, run_module_rule

CASES = [
    ("rearrange", (2, 3, 4), "b c h -> b h c", {}), ("rearrange", (2, 3, 4), "b c h -> b (c h)", {}),
    ("rearrange", (2, 12), "b (h w) -> b h w", {"h": 3}), ("rearrange", (2, 12), "b (h w) -> b h w", {"h": 5}),
    ("rearrange", (2, 12), "b (h w) -> b h w", {}), ("rearrange", (2, 3, 4, 5), "b ... c -> b c ...", {}),
    ("rearrange", (2, 3, 4, 5), "b ... -> b (...)", {}), ("rearrange", (2, 3), "b c -> b c 1", {}),
    ("rearrange", (2, 1, 3), "b 1 c -> b c", {}), ("rearrange", (2, 2, 3), "b 1 c -> b c", {}),
    ("rearrange", (2, 1, 3), "b () c -> b c", {}), ("rearrange", (2, 3), "b c -> c", {}),
    ("rearrange", (2, 3), "b c d -> b c d", {}), ("rearrange", (2, 3), "b b -> b", {}),
    ("rearrange", (2, 6), "b (c 2) -> b c", {}), ("rearrange", (2, 3), "b c -> (b c", {}),
    ("rearrange", (2, 3), "b c", {}), ("rearrange", (2, 3, 4), "b c h -> h b c", {"h": 4}),
    ("rearrange", (2, 3, 4), "b c h -> h b c", {"h": 5}), ("rearrange", (2, 3, 4), "b c h -> h b c", {"q": 5}),
    ("rearrange", (2, 24), "b (h w c) -> b h w c", {"h": 2, "w": 3}), ("rearrange", (2, 24), "b (h w c) -> b h w c", {"h": 2}),
    ("rearrange", (6, 4, 4), "(b1 b2) h w -> (b1 h) (b2 w)", {"b1": 2}), ("rearrange", (2, 3), "... -> ...", {}),
    ("rearrange", (2,), "b ... c d -> b", {}), ("rearrange", (2, 3, 4), "b (...) -> b", {}),
    ("rearrange", (2, 3, 4), "b c _h -> b c _h", {}), ("rearrange", (8, 10, 3), "(b p1) (h p2) c -> b h (p1 p2 c)", {"p1": 2, "p2": 5}),
    ("repeat", (2, 3), "b c -> b c r", {"r": 4}), ("repeat", (2, 3), "b c -> b (c r)", {"r": 2}),
    ("repeat", (2, 3), "b c -> b c r", {}), ("repeat", (2, 3), "b c -> b c 3", {}), ("repeat", (2, 3), "b c -> c", {}),
    ("repeat", (3,), "h -> (2 h) 1", {}), ("repeat", (2, 3), "... -> x ...", {"x": 2}),
    ("reduce", (2, 3, 4), "b c h -> b c", "mean"), ("reduce", (2, 3, 4), "b c h -> b () c", "max"),
    ("reduce", (2, 3, 4), "b c (h w) -> b c h", "sum"), ("reduce", (2, 3, 8), "b c (h h2) -> b c h", "max"),
    ("reduce", (2, 3, 4), "b ... -> b", "min"), ("reduce", (2, 3, 4), "b c h -> b c z", "sum"),
    ("reduce", (2, 3, 4), "b c h -> b c", "median"), ("reduce", (2, 6, 4), "b (c 2) h -> b c", "sum"),
    ("reduce", (2, 3, 4, 4), "b c (h 2) (w 2) -> b c h w", "mean"), ("reduce", (2, 3, 5, 4), "b c (h 2) (w 2) -> b c h w", "mean"),
]


@pytest.mark.parametrize("kind,s,pattern,extra", CASES)
def test_einops(kind, s, pattern, extra):
    if kind == "reduce":
        check("einops.reduce", einops.reduce, (T(*s), pattern, extra))
    else:
        check(f"einops.{kind}", getattr(einops, kind), (T(*s), pattern), extra)


rng = random.Random(23)
RANDOM = []
for _ in range(20):
    s = [rng.randint(1, 4) for _ in range(rng.randint(1, 4))]
    names = "abcd"[:len(s)]
    k = rng.randrange(len(s))
    perm = list(names)
    rng.shuffle(perm)
    h = rng.randint(1, 3)
    s[k] *= rng.choice([h, h + 1])
    left = " ".join(f"({n} z)" if i == k else n for i, n in enumerate(names))
    right = " ".join(perm) + " z"
    RANDOM.append((tuple(s), f"{left} -> {right}", h))


@pytest.mark.parametrize("s,pattern,h", RANDOM)
def test_einops_random(s, pattern, h):
    check("einops.rearrange", einops.rearrange, (T(*s), pattern), {"z": h})


@pytest.mark.parametrize("pattern,kw,s", [("b c (h w) -> b c h w", {"h": 2}, (2, 3, 8)), ("b c h w -> b (c h w)", {}, (2, 3, 4, 5))])
def test_rearrange_layer(pattern, kw, s):
    check_module("einops.layers.torch.Rearrange", Rearrange, (pattern,), kw, args=(T(*s),))


def test_rearrange_layer_wrong_rank():
    # the einops layer itself fails with a KeyError here (its recipe cache is keyed by rank)
    with pytest.raises(KeyError):
        Rearrange("b c h w -> b (c h w)")(torch.empty(2, 3, 4, device="meta"))
    assert run_module_rule("einops.layers.torch.Rearrange", ("b c h w -> b (c h w)",), {}, (T(2, 3, 4),), {})[0] == "error"


@pytest.mark.parametrize("pattern,red,s", [("b c h w -> b c", "mean", (2, 3, 4, 5)), ("b c (h 2) (w 2) -> b c h w", "max", (2, 3, 4, 4))])
def test_reduce_layer(pattern, red, s):
    check_module("einops.layers.torch.Reduce", Reduce, (pattern, red), args=(T(*s),))


def test_symbolic():
    B, Tt, C = Expr.sym("B"), Expr.sym("T"), Expr.sym("C")
    x = TensorV(Shape.of((B, Tt, C)), "float32")
    y = apply("einops.rearrange", x, "b t (h d) -> b h t d", h=12)
    assert str(y.shape) == "[B, 12, T, C//12]"
    H = Expr.sym("H")
    z = apply("einops.rearrange", x, "b t (h d) -> b h t d", h=IntV(H))
    assert str(z.shape) == "[B, H, T, C//H]"
    back = apply("einops.rearrange", y, "b h t d -> b t (h d)").shape.dims[2]
    assert back.evaluate({"C": 48}) == 48 and back.evaluate({"C": 50}) == 48  # 12*(C//12)
    assert str(apply("einops.reduce", x, "b t c -> b c", "mean").shape) == "[B, C]"


LAYERS_PROGRAM = '''import torch
from torch import nn
from einops.layers.torch import Rearrange, Reduce

split = Rearrange("b (t c) -> b t c", c=16)
y = split(torch.rand([32, 32]))
model = nn.Sequential(
    nn.Conv2d(3, 6, kernel_size=(5, 5)),
    Reduce("b c (h h2) (w w2) -> b c h w", "max", h2=2, w2=2),
    Rearrange("b c h w -> b (c h w)"),
)
z = model(torch.randn([10, 3, 32, 32]))
'''


def test_layers_keep_their_axis_lengths_in_the_analysis():
    """`Rearrange(pattern, c=16)` built by the analysis keeps `c` (a layer's `**axes_lengths`
    were dropped from its configuration: a false "cannot infer the sizes" error)."""
    from shapehint.analysis.api import analyze_source
    result = analyze_source(LAYERS_PROGRAM, "layers.py")
    assert [d.code for d in result.diagnostics if d.severity == "error"] == []
    got = {v.name: [d.value for d in v.shape.dims] for v in result.values if v.name in ("y", "z")}
    ns: dict = {}
    exec(compile(LAYERS_PROGRAM, "layers.py", "exec"), ns)
    assert got == {"y": list(ns["y"].shape), "z": list(ns["z"].shape)}
    split = next(v for v in result.values if v.name == "split")
    assert split.text == "Rearrange(pattern='b (t c) -> b t c', c=16)"  # what hover shows
