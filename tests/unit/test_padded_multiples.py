"""A size padded up to a multiple, `A + (k - A % k) % k`, is `k*((A - 1)//k) + k` (a constant
k) or `-k*((-A)//k)` (a symbolic one): shapes/expr.py's `_complement` writes the padding as
that multiple less A, so the sum holds A once and its `//k` and `%k` are exact. Written as a
mod of A's mod, each stage of a windowed model (patches, windows clipped to the input, windows
again, merged patches) held its input twice, and the second stage's sizes passed the integer
size limit (`evaluator._tracked`): nothing after it had a shape. Every shape claimed is
evaluated against torch's for sizes that are and are not multiples."""
import itertools

import pytest

from shapehint.shapes.expr import Expr, written_mod

torch = pytest.importorskip("torch")

from .test_windowed_attention import _evaluates, _inferred, _run  # noqa: E402  (torch first)

A, K = Expr.sym("A"), Expr.sym("K")


@pytest.mark.parametrize("k", [2, 3, 4, 7])
def test_the_padding_to_a_constant_multiple_is_that_multiple_less_the_size(k):
    pad = (k - A % k) % k
    assert str(A + pad) == f"{k}*((A - 1)//{k}) + {k}"
    assert (A + pad) % k == 0 and (A + pad) // k * k == A + pad
    shifted = (k - (A + 5) % k) % k  # a numerator reduced modulo k: still the padding of A + 5
    for a in range(0, 40):
        assert pad.evaluate({"A": a}) == (k - a % k) % k
        assert shifted.evaluate({"A": a}) == (k - (a + 5) % k) % k


def test_the_padding_to_a_symbolic_multiple_holds_for_either_sign():
    pad = (K - A % K) % K
    assert str(A + pad) == "-K*((-A)//K)" and (A + pad) // K == -((-A) // K)
    assert (A + pad) % K == 0
    two = (2 * K - (A + K) % K) % K
    for a, k in itertools.product(range(-9, 30), [*range(-6, 0), *range(1, 9)]):
        assert pad.evaluate({"A": a, "K": k}) == (k - a % k) % k, (a, k)
        assert two.evaluate({"A": a, "K": k}) == (2 * k - (a + k) % k) % k, (a, k)


def test_other_modulo_sums_are_left_as_written():
    assert str((K + A % K) % K) == "(K + A%K)%K"
    assert str((4 - A % 3) % 4) == "(-(A%3))%4"
    assert str(written_mod(K - A % K, K)) == "(K - A%K)%K"


STAGES = """\
import torch
from torch import nn


def partition(x, ws):
    b, h, w, c = x.shape
    x = x.view(b, h // ws, ws, w // ws, ws, c)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, c)


def reverse(windows, ws, h, w):
    c = windows.shape[-1]
    x = windows.view(-1, h // ws, w // ws, ws, ws, c)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, h, w, c)


class Stage(nn.Module):
    def __init__(self, window_size):
        super().__init__()
        self.window_size = window_size

    def forward(self, x: torch.Tensor, res: tuple[int, int]):
        if min(res) <= self.window_size:
            self.window_size = min(res)
        h, w = res
        b, _, c = x.shape
        x = x.view(b, h, w, c)
        pad_r = (self.window_size - w % self.window_size) % self.window_size
        pad_b = (self.window_size - h % self.window_size) % self.window_size
        x = nn.functional.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        _, hp, wp, _ = x.shape
        windows = partition(x, self.window_size)
        back = reverse(windows, self.window_size, hp, wp)
        x = back[:, :h, :w, :]
        x = nn.functional.pad(x, (0, 0, 0, w % 2, 0, h % 2))
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], -1)
        out = x.view(b, -1, 4 * c)
        return out, ((h + 1) // 2, (w + 1) // 2)


class Net(nn.Module):
    def __init__(self, patch: int, window_size: int):
        super().__init__()
        self.patch = patch
        self.s1 = Stage(window_size)
        self.s2 = Stage(window_size)
        self.s3 = Stage(window_size)

    def forward(self, img: torch.Tensor):
        b, c, height, width = img.shape
        p = self.patch
        img = nn.functional.pad(img, (0, (p - width % p) % p, 0, (p - height % p) % p))
        _, _, hp, wp = img.shape
        x = img.view(b, c, hp // p, p, wp // p, p).permute(0, 2, 4, 1, 3, 5).reshape(b, (hp // p) * (wp // p), c * p * p)
        res = (hp // p, wp // p)
        x1, res = self.s1(x, res)
        x2, res = self.s2(x1, res)
        x3, res = self.s3(x2, res)
        return x1, x2, x3


def f(img, patch, window_size):
    return Net(patch, window_size)(img)
"""


def test_three_padded_windowed_stages_keep_their_sizes():
    got = _inferred(STAGES, "Net.forward")
    for (h, w), p, ws in (((32, 32), 4, 4), ((30, 27), 4, 3), ((61, 45), 3, 7), ((17, 40), 2, 5)):
        img = torch.randn(2, 3, h, w)
        outs = _run(STAGES, "f", img, p, ws)
        env = {"b": 2, "c": 3, "height": h, "width": w, "patch": p}
        for name, t in zip(("x1", "x2", "x3"), outs):
            assert _evaluates(got[name]["shape"], list(t.shape), env)
