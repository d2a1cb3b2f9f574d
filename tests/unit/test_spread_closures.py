"""A list of unknown length spread into a function's `*args`, and a function defined in a
function reading the enclosing one's names (issue 27: a dense block's layers concatenate the
list of features grown in a loop, through a closure given to activation checkpointing).
Every shape claimed is evaluated against what Python computes for the same program; each test
failed before its mechanism (analysis/spread.py; executor.s_FunctionDef; contexts.Listing and
sink.record for contexts past the caps)."""
import torch

from shapehint.analysis import contexts
from shapehint.analysis.api import analyze_source
from shapehint.analysis.sink import MAX_OBSERVATIONS, Sink
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import Span, TensorV

PRELUDE = "import torch\nimport torch.nn as nn\nimport torch.utils.checkpoint as cp\n\n\n"


def _values(src: str, function: str) -> dict:
    r = analyze_source(src, "m.py")
    return {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["function"] == function}


def _run(src: str) -> dict:
    ns: dict = {}
    exec(compile(src, "m.py", "exec"), ns)
    return ns


def _evaluated(shape: list, env: dict) -> list:
    """Each dim of an inferred shape evaluated in `env` (a dim left `?` is no claim: None)."""
    return [None if d == "?" else d if isinstance(d, int) else eval(d, {}, env) for d in shape]


GROWN = PRELUDE + """def f(x, n):
    assert x.dim() == 4
    feats = [x]
    for _ in range(n):
        feats.append(x + 1)

    def closure(*inputs):
        return torch.cat(inputs, 1)

    out = closure(*feats)
    return out
"""


def test_a_list_grown_in_a_loop_spread_into_star_args_concatenates_as_the_list_does():
    got = _values(GROWN, "f")["out"]
    for n in (0, 1, 3):
        x = torch.randn(2, 4, 5, 3)
        want = list(_run(GROWN)["f"](x, n).shape)
        assert _evaluated(got, {"x": x, "n": n}) == want  # (n + 1)*x.shape[1] channels, every dim known


NAMED_FIRST = PRELUDE + """def g(first, *rest):
    return first[:, :1] * torch.cat(rest, 1)


def f(x, n):
    assert x.dim() == 4
    feats = [x]
    for _ in range(n):
        feats.append(x + 1)
    out = g(*feats)
    same = g(x, *feats)
    return out, same
"""


def test_a_spread_that_could_also_fill_named_parameters_binds_nothing():
    """How many of the items `first` takes is fixed (one), but the analysis binds a spread of
    unknown length only where all of it lands in `*args`: no shape here, never a wrong one;
    after a named argument given before it, the whole spread is `*rest`."""
    got = _values(NAMED_FIRST, "f")
    assert got.get("out") is None
    x = torch.randn(2, 4, 5, 3)
    _, same = _run(NAMED_FIRST)["f"](x, 2)
    assert _evaluated(got["same"], {"x": x, "n": 2}) == list(same.shape)


DENSE = PRELUDE + """class Layer(nn.Module):
    def __init__(self, cin: int, growth: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, growth, 3, padding=1)

    def joined(self, inputs):
        cat = torch.cat(inputs, 1)
        return self.conv(cat)

    def forward(self, feats):
        def closure(*inputs):
            return self.joined(inputs)

        new = cp.checkpoint(closure, *feats, use_reentrant=False)
        return new


def f(x, n: int, growth: int):
    feats = [x]
    for i in range(n):
        feats.append(Layer(x.shape[1] + i * growth, growth)(feats))
    out = Layer(x.shape[1] + n * growth, growth)(feats)
    return out
"""


def test_a_closure_reads_self_of_the_method_that_defines_it():
    got = _values(DENSE, "f")["out"]
    assert got[0] != "?" and got[1] != "?" and got[2:] != ["?", "?"]
    for n in (0, 2):
        x = torch.randn(2, 3, 6, 5)
        want = list(_run(DENSE)["f"](x, n, 4).shape)
        assert _evaluated(got, {"x": x, "n": n, "growth": 4}) == want


def _t(*dims) -> TensorV:
    return TensorV(Shape.of([Expr.const(d) for d in dims]), "float32", None)


def test_a_context_whose_calls_were_not_all_kept_lists_no_shape():
    """Past MAX_OBSERVATIONS a record keeps no more calls: a context label reached through the
    same calls as one that was dropped would claim the kept calls' shape for the dropped one."""
    sink = Sink("m.py")
    span = Span(3, 4, 3, 5)
    one = contexts.with_via("called from g (line 9)", ("g:9",))
    other = contexts.with_via("called from h (line 7)", ("h:7",))
    sink.record(span, "y", "f", _t(2, 3), other, False, True)
    for _ in range(MAX_OBSERVATIONS - 1):
        sink.record(span, "y", "f", _t(2, 3), one, False, True)
    sink.record(span, "y", "f", _t(2, 5), one, False, True)  # past the cap: not kept
    [rec] = sink.finish_values(lambda t: t.shape)
    listed = {str(lbl) for lbl, _ in rec.contexts}
    assert "g:9" not in listed and "h:7" in listed


def test_a_group_of_contexts_the_listing_cap_cuts_is_not_listed_at_all():
    listing = contexts.Listing(set())
    for k in range(contexts.MAX_CONTEXTS - 1):
        listing.add(f"q{k}:1", Shape.of([Expr.sym("B")]), f"[B, {k}]")
    group = contexts.with_via("r:5", ("p:2", "r:5"))
    listing.add(group, Shape.of([Expr.sym("B"), Expr.const(3)]), "[B, 3]")
    listing.add(group, Shape.of([Expr.sym("B"), Expr.const(4)]), "[B, 4]")  # past the cap
    listed = [str(lbl) for lbl, _ in listing.listed()]
    assert len(listed) == contexts.MAX_CONTEXTS - 1 and "r:5" not in listed


LATE = PRELUDE + """def f(x):
    assert x.dim() == 3
    h = x[:, :1]

    def g():
        return h * 2

    first = g()
    h = x
    later = g()
    return first, later
"""


def test_a_closure_reads_the_enclosing_names_as_they_are_when_it_is_called():
    """Python binds a free name late: `g` called after `h = x` reads that `h`."""
    got = _values(LATE, "f")
    x = torch.randn(2, 5, 3)
    first, later = _run(LATE)["f"](x)
    assert _evaluated(got["first"], {"x": x}) == list(first.shape) == [2, 1, 3]
    assert _evaluated(got["later"], {"x": x}) == list(later.shape) == [2, 5, 3]
