"""The layout of a `reshape` of a strided tensor is decided from sizes written alike only.

A window partition (`x.reshape(B, C, H // P, P, W // P, P).permute(0, 2, 4, 3, 5, 1)
.reshape(B, (H // P) * (W // P), P * P, C)`) asked the solver, for every chunk of strides,
whether `P*(W//P)*P` equals `W//P*P` and the like: each a "no" it could not give quickly, about a
layout the shapes do not depend on (a maxvit file went from 0.9 s to 10 s). `ops/common.reshaped`
takes a view only where computeStride succeeds on sizes written alike; where it does not, the
result's layout is unknown (not row-major, no strides), so no later view is rejected because of it
and `is_contiguous()` is left open. `view_result` decides "contiguous" the same way, and `view`
itself still asks the solver (`view_strides`)."""
import pytest
import torch

from shapehint.analysis.api import analyze_source
from shapehint.ops.common import strides_of
from shapehint.ops.concrete import ConcreteContext, OpFailed, apply
from shapehint.ops.families.permutations import permute, transpose
from shapehint.ops.families.tensor_metadata import is_contiguous
from shapehint.ops.families.views import reshape, view
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import IntV, TensorV

B, C, H, W, P, T = (Expr.sym(n) for n in ("B", "C", "H", "W", "P", "T"))


class Asking(ConcreteContext):
    """Counts the questions a rule puts to the solver."""

    def __init__(self, name):
        super().__init__(name)
        self.asked = 0

    def entails(self, pred):
        self.asked += 1
        return super().entails(pred)


def _i(*dims):
    return [IntV(Expr.lift(d)) for d in dims]


def _at(e: Expr, env: dict) -> int:
    return e.subs({k: Expr.const(v) for k, v in env.items()}).value


def _window_partition(cx):
    x = TensorV(Shape.of((B, C, H, W)), "float32")
    x = reshape(cx, x, *_i(B, C, H // P, P, W // P, P))
    x = permute(cx, x, *_i(0, 2, 4, 3, 5, 1))
    return reshape(cx, x, *_i(B, (H // P) * (W // P), P * P, C))


def test_a_window_partition_asks_the_solver_nothing_about_strides():
    cx = Asking("x.reshape")
    y = _window_partition(cx)
    assert cx.asked == 0
    assert str(y.shape) == "[B, (H//P)*(W//P), P*P, C]"
    for b, c, h, w, p in [(2, 3, 8, 12, 4), (1, 5, 6, 6, 2), (3, 1, 4, 8, 4)]:
        env = {"B": b, "C": c, "H": h, "W": w, "P": p}
        t = torch.empty(b, c, h, w, device="meta").reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 3, 5, 1)
        t = t.reshape(b, (h // p) * (w // p), p * p, c)
        assert [_at(d, env) for d in y.shape.dims] == list(t.shape)


def test_an_undecided_layout_is_unknown_and_rejects_no_later_view():
    cx = ConcreteContext("x.reshape")
    y = _window_partition(cx)
    assert not y.contiguous and strides_of(y) is None
    assert is_contiguous(cx, y).pred is None  # neither True nor False
    z = view(cx, transpose(cx, y, IntV(Expr.const(1)), IntV(Expr.const(2))), *_i(B, -1))
    assert str(z.shape) == "[B, C*P*P*(H//P)*(W//P)]"


def test_a_view_found_on_sizes_written_alike_keeps_its_strides():
    # [B, T, 2H].transpose(1, 2).reshape(B, 2, H, T) splits the 2H axis: a view, as in PyTorch
    cx = Asking("x.reshape")
    x = transpose(cx, TensorV(Shape.of((B, T, 2 * H)), "float32"), IntV(Expr.const(1)), IntV(Expr.const(2)))
    y = reshape(cx, x, *_i(B, 2, H, T))
    assert cx.asked == 0
    for b, t, h in [(2, 3, 4), (3, 5, 2), (4, 2, 7)]:  # (a size of 1 may have any stride)
        env = {"B": b, "T": t, "H": h}
        real = torch.empty(b, t, 2 * h, device="meta").transpose(1, 2).reshape(b, 2, h, t)
        assert [_at(s, env) for s in strides_of(y)] == list(real.stride())


def test_a_view_of_that_view_is_rejected_as_pytorch_rejects_it():
    y = apply("Tensor.reshape", apply("Tensor.transpose", TensorV(Shape.of((2, 3, 8)), "float32"), 1, 2), 2, 2, 4, 3)
    assert strides_of(y) == (24, 4, 1, 8)
    with pytest.raises(RuntimeError):
        torch.empty(2, 3, 8, device="meta").transpose(1, 2).reshape(2, 2, 4, 3).view(2, -1)
    with pytest.raises(OpFailed) as e:
        apply("Tensor.view", y, 2, -1)
    assert e.value.code == "SH104"


def test_a_reshape_that_must_copy_is_row_major_when_its_sizes_are_numbers():
    y = apply("Tensor.reshape", apply("Tensor.transpose", TensorV(Shape.of((2, 3, 4)), "float32"), 1, 2), 2, 12)
    assert y.contiguous
    assert torch.empty(2, 3, 4, device="meta").transpose(1, 2).reshape(2, 12).is_contiguous()


SRC = '''import torch
from jaxtyping import Float
from torch import Tensor, nn


class Windows(nn.Module):
    def __init__(self, p: int = 4):
        super().__init__()
        self.p = p

    def forward(self, x: Float[Tensor, "B C H W"]):
        B, C, H, W = x.shape
        P = self.p
        parts = x.reshape(B, C, H // P, P, W // P, P).permute(0, 2, 4, 3, 5, 1)
        parts = parts.reshape(B, (H // P) * (W // P), P * P, C)
        back = parts.view(B, H // P, W // P, P, P, C).permute(0, 5, 1, 3, 2, 4)
        back = back.reshape(B, C, H, W)
        flat = back.transpose(1, 2).reshape(B, H, C * W)
        return parts, back, flat
'''


def test_a_partition_and_its_inverse_are_torchs_without_errors():
    res = analyze_source(SRC, "windows.py")
    assert [d.code for d in res.diagnostics if d.severity == "error"] == []
    got = {v["name"]: v["shape"] for v in res.infer_json()["values"] if v["function"] == "Windows.forward"}
    ns: dict = {}
    exec(compile(SRC, "windows.py", "exec"), ns)
    parts, back, flat = ns["Windows"]()(torch.randn(2, 3, 8, 12))
    assert parts.shape == (2, 6, 16, 3) and back.shape == (2, 3, 8, 12) and flat.shape == (2, 8, 36)
    assert got["parts"] == ["B", "(H//p)*(W//p)", "p*p", "C"]  # p: the constructor's, 4 here
    assert got["back"] == ["B", "C", "H", "W"]
    assert got["flat"] == ["B", "H", "C*W"]
