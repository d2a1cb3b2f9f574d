"""Sizes padded up to a multiple of s then divided by s (a stride-s slice, a window count), and
sizes divided in stages, simplify on construction (`shapes/expr.py`: `_rounded_up`,
`_inner_mods_dropped`, `_nested_floordiv`). Each rewrite is checked here by evaluating the
simplified expression against Python's own arithmetic on the same formula, over negative, zero,
small, odd and even ints; and the windowed program's inferred sizes against torch (meta tensors)."""
import itertools
import sys
from pathlib import Path

import pytest
import torch

from shapehint.shapes.expr import Expr

sys.path.insert(0, str(Path(__file__).parent))
from shape_eval import evaluated, inferred, run_program  # noqa: E402

A, B = Expr.sym("a"), Expr.sym("b")
VALUES = range(-9, 14)


def forms(s: int):
    """Formulas written with Python operators only, so each runs on ints and on Exprs alike."""
    return [
        lambda a, b: (a + a % s - 1) // s + 1,  # s = 2: pad to even, then x[:, 0::2]
        lambda a, b: (a + (s - a % s) % s - 1) // s + 1,  # pad up to a multiple of s, stride-s slice
        lambda a, b: (a + (s - a % s) % s) // s,  # window count of the padded size
        lambda a, b: (a + (-a) % s + 3) // s,
        lambda a, b: (a + (-a) % s - 5) // s,
        lambda a, b: (2 * a + (-2 * a) % s + 1) // s,
        lambda a, b: (a * b + (s - (a * b) % s) % s - 1) // s + 1,
        lambda a, b: (a + b + (-(a + b)) % s) // s,
        lambda a, b: (a + (a + 1) % s + 1) // s,  # a constant in P + B
        lambda a, b: (a + (a + 3) % s - 2) // s,
        lambda a, b: (a + (-a + 1) % s) // s,
        lambda a, b: (a + a % s + b % s) // s,  # two moduli: one may match, the other stays
        lambda a, b: (a + b % s) // s,  # no match: unchanged
        lambda a, b: (2 * (a % s) + a) % s,  # an inner modulo by the same s
        lambda a, b: (b - 3 * (a % s)) % s,
        lambda a, b: (a // s + 1) // 3,  # staged divisions
        lambda a, b: (a // s - 2) // s,
        lambda a, b: ((a + 1) // s + b) // s,  # not a single division: unchanged
        lambda a, b: (((a - 1) // 2 + 1) + ((a - 1) // 2 + 1) % 2 - 1) // 2 + 1,  # two merges
    ]


@pytest.mark.parametrize("s", [2, 3, 4, 5, 7])
def test_each_rewrite_agrees_with_python_on_every_int(s):
    for i, f in enumerate(forms(s)):
        e = f(A, B)
        for a, b in itertools.product(VALUES, VALUES):
            assert e.evaluate({"a": a, "b": b}) == f(a, b), (s, i, str(e), a, b)


def test_the_padded_halving_is_written_as_a_halving():
    assert str((A + A % 2 - 1) // 2 + 1) == "(a - 1)//2 + 1"
    assert str((A + (4 - A % 4) % 4) // 4) == "(a - 1)//4 + 1"
    assert str((4 - A % 4) % 4) == "(-a)%4"
    assert str((((A - 1) // 2 + 1) + ((A - 1) // 2 + 1) % 2 - 1) // 2 + 1) == "(a - 1)//4 + 1"
    assert str((A + B % 2) // 2) == "(a + b%2)//2"  # no rewrite where none is proved


PROGRAM = """import torch
import torch.nn.functional as F


def merge(x):
    B, H, W, C = x.shape
    x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))
    y = x[:, 0::2, 0::2, :]
    return torch.cat([y, x[:, 1::2, 0::2, :]], -1)


def windows(x):
    B, H, W, C = x.shape
    pad_h = (4 - H % 4) % 4
    pad_w = (4 - W % 4) % 4
    x = F.pad(x, (0, 0, 0, pad_w, 0, pad_h))
    w = x.view(B, x.shape[1] // 4, 4, x.shape[2] // 4, 4, C)
    return w


def twice(x):
    y = merge(x)
    z = merge(y)
    return z
"""


def test_padded_merges_and_windows_match_torch():
    ns = run_program(PROGRAM)
    merge, windows = inferred(PROGRAM, "merge"), inferred(PROGRAM, "windows")
    twice = inferred(PROGRAM, "twice")
    assert merge["y"] == ["B", "(H - 1)//2 + 1", "(W - 1)//2 + 1", "C"]
    assert twice["z"][1] == "(x.shape[1] - 1)//4 + 1"
    for h, w in itertools.product((1, 2, 3, 4, 5, 7, 8, 9), (1, 2, 5, 6)):
        x = torch.empty(2, h, w, 3, device="meta")
        env = {"B": 2, "H": h, "W": w, "C": 3, "x": x}
        assert evaluated(merge["y"], env) == [2, *ns["merge"](x).shape[1:3], 3]
        assert evaluated(windows["w"], env) == list(ns["windows"](x).shape)
        assert evaluated(twice["z"], {"x": x}) == list(ns["twice"](x).shape)
