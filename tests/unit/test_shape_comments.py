"""Trailing shape comments are checked against the inference (SH204), never used as input."""
from shapehint.analysis.api import analyze_source

SRC = '''import torch
from jaxtyping import Float
from torch import Tensor


def f(x: Float[Tensor, "B T C"]):
    y = x.transpose(1, 2)  # [B, C, T]
    z = x.sum(-1)  # (B, T)
    w = x.flatten(1)  # shape: [B, T*C]
    bad = x.transpose(1, 2)  # [B, T, C]
    worse = x.sum(-1)  # [B, T, C]
    renamed = x.mean(0)  # [N, D]
    fixed = x[:, :4]  # [B, 5, C]
    note = x + 1  # this is not a shape comment [B]
    return y, z, w, bad, worse, renamed, fixed, note
'''


def test_shape_comments_are_checked():
    r = analyze_source(SRC, "m.py")
    lines = sorted(d.line for d in r.diagnostics if d.code == "SH204")
    assert lines == [10, 11, 13]
    msg = next(d.message for d in r.diagnostics if d.line == 10)
    assert "[B, T, C]" in msg and "[B, C, T]" in msg


def test_shape_comments_never_change_the_inference():
    r = analyze_source(SRC, "m.py")
    vals = {v["name"]: v["shape"] for v in r.infer_json()["values"]}
    assert vals["bad"] == ["B", "C", "T"]
    assert vals["renamed"] == ["T", "C"]
