"""An undecided `if` whose true arm pads a size up to a multiple of `m` and whose false arm
leaves it as it is (a patch embedding's `maybe_pad`): the join is `size + (m - size%m)%m`,
which each arm's condition proves equal to its own size (analysis/arm_alignment.py, `_rounded`;
before, `?`). Arms that differ otherwise still join to `?`. Every shape claimed is evaluated and
compared with torch's for sizes that are and are not multiples."""
import pytest

torch = pytest.importorskip("torch")

from .test_windowed_attention import _inferred, _run  # noqa: E402  (torch first)


def _value(d, env):
    return d if isinstance(d, int) else eval(d, {"min": min, "max": max}, dict(env))


def _matches(shape, observed, env) -> bool:
    assert shape is not None and len(shape) == len(observed), (shape, observed)
    assert "?" not in str(shape), shape
    return [_value(d, env) for d in shape] == list(observed)


PAD = """\
import torch
from torch import nn


def pad_to(x: torch.Tensor, p: int):
    b, c, h, w = x.shape
    if w % p != 0:
        x = nn.functional.pad(x, (0, p - w % p))
    padded = x
    return padded


def pad_to_four(x: torch.Tensor):
    b, c, h, w = x.shape
    if w % 4 != 0:
        x = nn.functional.pad(x, (0, 4 - w % 4))
    padded = x
    return padded


def pad_unless_multiple(x: torch.Tensor, p: int):
    b, c, h, w = x.shape
    if h % p == 0:
        y = x
    else:
        y = nn.functional.pad(x, (0, 0, 0, p - h % p))
    padded = y
    return padded


def pad_by_one(x: torch.Tensor, p: int):
    b, c, h, w = x.shape
    if w % p != 0:
        x = nn.functional.pad(x, (0, 1))
    unrelated = x
    return unrelated


class Patches(nn.Module):
    def __init__(self, patch: int, dim: int):
        super().__init__()
        self.patch_size = (patch, patch)
        self.proj = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)

    def maybe_pad(self, x, height, width):
        if width % self.patch_size[1] != 0:
            x = nn.functional.pad(x, (0, self.patch_size[1] - width % self.patch_size[1]))
        if height % self.patch_size[0] != 0:
            x = nn.functional.pad(x, (0, 0, 0, self.patch_size[0] - height % self.patch_size[0]))
        return x

    def forward(self, x: torch.Tensor):
        b, c, height, width = x.shape
        padded = self.maybe_pad(x, height, width)
        out = self.proj(padded)
        return padded, out


def patches(x, patch, dim):
    return Patches(patch, dim)(x)
"""


@pytest.mark.parametrize("w", [8, 9, 11, 12])
@pytest.mark.parametrize("p", [3, 4])
def test_a_size_padded_to_a_multiple_on_one_arm_joins_to_the_rounded_size(w, p):
    x = torch.randn(2, 3, 5, w)
    env = {"b": 2, "c": 3, "h": 5, "w": w, "p": p}
    got = _inferred(PAD, "pad_to")["padded"]["shape"]
    assert got[-1] == "-p*((-w)//p)"  # w + (p - w%p)%p, the multiple it rounds up to (test_padded_multiples.py)
    assert _matches(got, _run(PAD, "pad_to", x, p).shape, env)
    got = _inferred(PAD, "pad_to_four")["padded"]["shape"]
    assert _matches(got, _run(PAD, "pad_to_four", x).shape, env)


@pytest.mark.parametrize("h", [6, 7, 8])
def test_the_padding_arm_may_be_the_false_one(h):
    x = torch.randn(2, 3, h, 5)
    got = _inferred(PAD, "pad_unless_multiple")["padded"]["shape"]
    assert _matches(got, _run(PAD, "pad_unless_multiple", x, 3).shape, {"b": 2, "c": 3, "h": h, "w": 5, "p": 3})


def test_arms_that_differ_otherwise_still_join_to_unknown():
    got = _inferred(PAD, "pad_by_one")["unrelated"]["shape"]
    assert got[:3] == ["b", "c", "h"] and got[3] == "?"
    x = torch.randn(2, 3, 5, 7)
    assert _run(PAD, "pad_by_one", x, 3).shape[-1] == 8  # neither 7 nor a multiple of 3


@pytest.mark.parametrize("hw", [(32, 32), (30, 29), (17, 20)])
def test_a_patch_embeddings_padding_in_a_helper_reaches_the_convolution(hw):
    h, w = hw
    got = _inferred(PAD, "Patches.forward")
    x = torch.randn(1, 3, h, w)
    padded, out = _run(PAD, "patches", x, 4, 8)
    env = {"b": 1, "c": 3, "height": h, "width": w, "patch": 4, "dim": 8}
    assert _matches(got["padded"]["shape"], padded.shape, env)
    assert _matches(got["out"]["shape"], out.shape, env)
