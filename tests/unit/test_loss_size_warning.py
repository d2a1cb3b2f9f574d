"""SH201 on a regression loss (ops/families/loss.py) when input and target sizes differ for every
admissible input — exactly when PyTorch itself warns and broadcasts — and not when the analysis
only cannot prove them equal (a reconstruction sized from a configuration against the image it
rebuilds: the whole-tree check warned on working code). Checked against PyTorch's own warning."""
import warnings

import torch

from shapehint.analysis.api import analyze_source

PROGRAM = '''import math
import torch
import torch.nn.functional as F


def rank_apart(pred, y):
    assert pred.dim() == 2 and pred.shape[1] == 1 and y.dim() == 1
    return F.mse_loss(pred, y)


def width_apart(pred, y):
    assert pred.dim() == 2 and pred.shape[1] == 3 and y.dim() == 2 and y.shape[1] == 1
    return F.l1_loss(pred, y)


def rebuilt(images, tokens):
    assert images.dim() == 4 and tokens.dim() == 3
    side = int(math.sqrt(tokens.shape[1]))
    rec = tokens.transpose(1, 2).reshape(tokens.shape[0], tokens.shape[2], side, side)
    return F.l1_loss(images, rec, reduction="none")
'''


def _warned_lines():
    r = analyze_source(PROGRAM, "m.py")
    return {d.line for d in r.diagnostics if d.code == "SH201"}


def _torch_warns(fn, *args) -> bool:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fn(*args)
    return any("target size" in str(w.message) for w in seen)


def test_sizes_that_always_differ_warn_as_pytorch_does():
    ns: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), ns)
    lines = _warned_lines()
    assert 8 in lines and 13 in lines
    assert _torch_warns(ns["rank_apart"], torch.randn(4, 1), torch.randn(4))
    assert _torch_warns(ns["width_apart"], torch.randn(2, 3), torch.randn(2, 1))


def test_sizes_only_not_proved_equal_do_not_warn():
    ns: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), ns)
    assert 20 not in _warned_lines()
    # the sizes agree when the image is what the tokens rebuild: PyTorch says nothing
    assert not _torch_warns(ns["rebuilt"], torch.randn(2, 8, 4, 4), torch.randn(2, 16, 8))
