"""Widths computed through floats (issue 27: ResNet-like bottlenecks size their middle conv with
`int(planes * (base_width / 64.0)) * groups`, MLP blocks with `int(dim * 4.0)`): a float the
analysis knows as the one rounding of an int quotient (analysis/arith.float_binop) gives
`int()`, `math.floor`, `math.ceil` and `round` (by an odd divisor: no ties) an exact size; a float rounded twice gives none. Each
claimed size is evaluated against what Python computes, over a grid of inputs. Before, every
such width was a fresh `int_N` symbol (or, through `math.ceil` of an unknown float, a float
that made the layer's construction fail, so the class had no shapes at all)."""
import itertools
import math

import pytest

from shapehint.analysis.api import analyze_source

HEAD = "import math\nimport torch\nfrom torch import nn\n\n\n"


def _shapes_of_y(src: str):
    """The analysis of `src`, and the shapes it gives the name `y`."""
    r = analyze_source(src, "m.py")
    return r, [v["shape"] for v in r.infer_json()["values"] if v["name"] == "y"]


def _width(expr: str, params: str) -> object:
    """The size the analysis gives `torch.zeros(<expr>)` in `f(<params>)` ("?" for none)."""
    _, got = _shapes_of_y(HEAD + f"def f({params}):\n    y = torch.zeros({expr})\n    return y\n")
    assert len(got) <= 1 and (not got or got[0] is None or len(got[0]) == 1), got
    return got[0][0] if got and got[0] else "?"


EXACT = [
    ("int(planes * (base_width / 64.0)) * groups", "planes: int, base_width: int, groups: int"),
    ("int(math.floor(planes * (base_width / 64)) * groups)", "planes: int, base_width: int, groups: int"),
    ("math.ceil(planes * 0.25)", "planes: int"),
    ("int(planes * 4.0)", "planes: int"),
    ("int(planes * 1.5)", "planes: int"),
    ("math.floor(planes / 8 + base_width / 2)", "planes: int, base_width: int"),
    ("int(0.75 * planes)", "planes: int"),
    ("int(round(planes * 1.0))", "planes: int"),
    ("round(planes / 3) + round(base_width * 5 / 7)", "planes: int, base_width: int"),
]


@pytest.mark.parametrize("expr,params", EXACT)
def test_a_width_rounded_once_is_exact(expr, params):
    dim = _width(expr, params)
    assert isinstance(dim, str) and "int_" not in dim and "?" not in dim, dim
    names = [p.split(":")[0].strip() for p in params.split(",")]
    for values in itertools.product([1, 3, 7, 8, 16, 48, 64, 100], repeat=len(names)):
        env = dict(zip(names, values))
        assert eval(dim, {}, env) == eval(expr, {"math": math}, env), (dim, env)


@pytest.mark.parametrize("expr", ["int(planes * (base_width / 3))", "int(planes * (base_width / 49.0))",
                                  "math.floor(planes * 0.1)", "round(planes * 0.5)", "round(planes / 4)"])
def test_a_width_rounded_twice_or_by_an_inexact_fraction_is_not_claimed(expr):
    # int(49 * (1 / 49)) is 0 where (49 * 1) // 49 is 1; round(2.5) is 2 (ties to even), not
    # floor(2.5 + 1/2): no formula over the parameters is claimed
    assert eval("int(49 * (1 / 49))") == 0 and round(5 * 0.5) == 2
    dim = _width(expr, "planes: int, base_width: int")
    assert dim == "?" or not any(n in dim for n in ("planes", "base_width")), dim


def test_a_ceiling_of_an_unknown_float_is_an_int_the_layer_accepts():
    src = HEAD + ("class Block(nn.Module):\n"
                  "    def __init__(self, cin: int, planes: int, ratio: float):\n"
                  "        super().__init__()\n"
                  "        self.conv = nn.Linear(cin, math.ceil(planes * ratio))\n\n"
                  "    def forward(self, x):\n"
                  "        y = self.conv(x)\n"
                  "        return y\n")
    r, got = _shapes_of_y(src)
    # x's leading axes, and a width of its own, which the layer holds (held_sizes.py)
    assert got == [["*x", "self.conv.out_features"]], got
    assert [d for d in r.diagnostics if d.severity == "error"] == []


def test_a_bottleneck_width_against_torch():
    torch = pytest.importorskip("torch")
    src = HEAD + ("class Bottleneck(nn.Module):\n"
                  "    def __init__(self, inplanes: int, planes: int, groups: int = 1, base_width: int = 64):\n"
                  "        super().__init__()\n"
                  "        width = int(planes * (base_width / 64.0)) * groups\n"
                  "        self.conv1 = nn.Conv2d(inplanes, width, 1)\n"
                  "        self.conv2 = nn.Conv2d(width, width, 3, padding=1, groups=groups)\n\n"
                  "    def forward(self, x):\n"
                  "        y = self.conv2(self.conv1(x))\n"
                  "        return y\n")
    shape = _shapes_of_y(src)[1][0]
    ns = {}
    exec(compile(src, "m.py", "exec"), ns)
    for planes, groups, base_width in [(64, 1, 64), (64, 4, 8), (32, 2, 40), (16, 1, 24)]:
        x = torch.randn(2, 8, 5, 6)
        y = ns["Bottleneck"](8, planes, groups, base_width)(x)
        env = {"x": x, "planes": planes, "groups": groups, "base_width": base_width}
        assert [eval(d, {}, env) for d in shape] == list(y.shape), (shape, env)


def test_an_unannotated_parameter_times_a_float_may_be_a_tensor():
    # `w * 0.5` of a parameter that may be a tensor is no float: `x * self.w` then broadcasts
    # with whatever `w` is, so x's shape is not claimed for it
    src = HEAD + ("class Scale(nn.Module):\n"
                  "    def __init__(self, w):\n"
                  "        super().__init__()\n"
                  "        self.w = w * 0.5\n\n"
                  "    def forward(self, x: torch.Tensor):\n"
                  "        y = x * self.w\n"
                  "        return y\n")
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(src, "m.py", "exec"), ns)
    assert ns["Scale"](torch.ones(3, 1, 1))(torch.ones(2, 1, 4, 4)).shape == (2, 3, 4, 4)
    _, got = _shapes_of_y(src)
    assert got in ([], [None]) or got[0] != ["*x"], got
