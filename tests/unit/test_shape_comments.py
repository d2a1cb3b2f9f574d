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


def test_a_name_only_another_function_uses_is_free_here():
    """Bloom's attention: `seq_length` names the second axis in `_split_heads`; in `forward`
    the same axis is `q_length`, and its comment's `seq_length` is just a word."""
    src = '''import torch


def split(fused: torch.Tensor):
    batch_size, seq_length, width = fused.shape
    return fused.view(batch_size, seq_length, 3, width // 3)


def forward(hidden_states: torch.Tensor):
    batch_size, q_length, _ = hidden_states.shape
    fused = torch.cat([hidden_states] * 3, dim=-1)  # [batch_size, seq_length, 3 x hidden_size]
    swapped = fused.transpose(0, 1)  # [batch_size, q_length, 3 x hidden_size]
    return split(fused), swapped
'''
    r = analyze_source(src, "m.py")
    assert [d.line for d in r.diagnostics if d.code == "SH204"] == [12]  # its own names still count


def test_prose_in_brackets_is_not_a_shape_comment():
    src = '''import torch


def f(patches: torch.Tensor):
    h, w, k = patches.shape
    patch = patches[0].t()  # (H*W) x (kernel**2)
    return patch
'''
    assert not [d for d in analyze_source(src, "m.py").diagnostics if d.code == "SH204"]
