"""Tensors of ranks that differ on the paths keep the axes every path shares (analysis/rank_joins.py).

A classifier head pools only for some strings its constructor may be given (`if self.pool ==
'avg': x = x.mean(1)`): `[B, N, C]` on one path, `[B, C]` on the other. Before, the join was
nothing, and so were the dropout and the logits after it. Now the shared leading and trailing
axes hold, around a segment of unknown length: `[B, *, C]`, and the classifier's `[B, *,
classes]`. The program is our own; what is shown is checked against PyTorch for every string
the constructor accepts."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

HEAD = '''import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, dim: int = 32, classes: int = 10, pool: str = 'avg'):
        super().__init__()
        assert pool in ('', 'avg')
        self.pool = pool
        self.drop = nn.Dropout(0.0)
        self.fc = nn.Linear(dim, classes)

    def forward(self, x: torch.Tensor):
        b, n, c = x.shape
        if self.pool == 'avg':
            x = x.mean(dim=1)
        x = self.drop(x)
        y = self.fc(x)
        return y
'''


def _shapes() -> dict:
    r = analyze_source(HEAD, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    return {(v["name"], v["line"]): v.get("shape") for v in r.infer_json()["values"]
            if v["function"] == "Head.forward"}


def _matches(shown: list, real: tuple, sizes: dict) -> bool:
    """`shown` (leading axes, one `*` segment, trailing axes) describes `real`."""
    star = [i for i, d in enumerate(shown) if str(d).startswith("*")]
    assert len(star) == 1, shown
    i = star[0]
    front, back = shown[:i], shown[i + 1:]
    if len(front) + len(back) > len(real):
        return False
    pairs = list(zip(front, real[:len(front)])) + list(zip(back, real[len(real) - len(back):]))
    return all(str(d) not in sizes or sizes[str(d)] == n for d, n in pairs)


def test_both_paths_keep_shared_axes_and_hold_for_every_string():
    got = _shapes()
    drop = got[("x", 17)]
    logits = got[("y", 18)]
    assert drop is not None and drop[0] == "b" and drop[-1] == "c", drop
    assert logits is not None and logits[0] == "b" and logits[-1] == "classes", logits
    ns = {}
    exec(compile(HEAD, "m.py", "exec"), ns)
    for pool in ("", "avg"):
        m = ns["Head"](32, 10, pool)
        x = torch.randn(3, 5, 32)
        h = m.drop(x.mean(dim=1) if pool == "avg" else x)
        sizes = {"b": 3, "c": 32, "classes": 10}
        assert _matches(drop, tuple(h.shape), sizes), (pool, drop, h.shape)
        assert _matches(logits, tuple(m(x).shape), sizes), (pool, logits, m(x).shape)


def _sh(*dims, star=None, suffix=()):
    from shapehint.shapes.expr import Expr
    from shapehint.shapes.shape import Shape
    lift = lambda ds: tuple(Expr.sym(d) if isinstance(d, str) else Expr.lift(d) for d in ds)
    return Shape(lift(dims), star, lift(suffix))


def test_a_join_of_a_path_whose_sides_may_be_one_axis_keeps_that_mark():
    from shapehint.analysis.rank_joins import common_ends
    made = []

    def fresh(like=None):
        made.append(like)
        return "?s9"
    # [B, *x, C] where B and C may be one axis (a 1-D x), joined with [B, C]: the join is as
    # short as one axis on that path, so its segment is made like the shared one
    x = _sh("B", star="*x", suffix=("C",))
    assert common_ends([x, _sh("B", "C")], fresh, lambda star: star == "*x") == _sh("B", star="?s9", suffix=("C",))
    assert made == ["*x"]
    assert common_ends([x, _sh("B", "C")], fresh) == _sh("B", star="?s9", suffix=("C",))
    assert made == ["*x", None]


def test_shared_axes_never_overlap_and_the_segment_is_always_new():
    from shapehint.analysis.rank_joins import common_ends
    fresh = iter(["?s1", "?s2", "?s3"]).__next__
    # [B, C] and [B, C, C]: the front takes both of [B, C]'s axes, so no trailing axis is claimed
    assert common_ends([_sh("B", "C"), _sh("B", "C", "C")], fresh) == _sh("B", "C", star="?s1")
    # nothing shared at either end: nothing claimed
    assert common_ends([_sh("B", "C"), _sh("C", "B", "H")], fresh) is None
    # `x.unsqueeze(1)` on one path: the input's segment `*x` no longer measures the middle
    x = _sh("B", star="*x", suffix=("C",))
    assert common_ends([x, _sh("B", 1, star="*x", suffix=("C",))], fresh) == _sh("B", star="?s2", suffix=("C",))
