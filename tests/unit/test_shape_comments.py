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


def test_a_size_shown_as_unknown_contradicts_no_name():
    """XLM-style attention: the heads' views leave the sequence axes as `-1` of another width, so
    the scores are shown `[bs, n_heads, ?, ?]`; a comment naming `qlen, klen` (locals of the
    function) is not contradicted by a `?` (transformers' flaubert/xlm got a false SH204). A
    known axis that disagrees is still reported."""
    src = '''import torch


class Attn(torch.nn.Module):
    def __init__(self, n_heads: int, dim: int):
        super().__init__()
        self.n_heads, self.head_dim = n_heads, dim // n_heads

    def forward(self, q: torch.Tensor, k: torch.Tensor):
        bs, qlen, dim = q.size()
        klen = k.size(1)
        qh = q.view(bs, -1, self.n_heads, self.head_dim).transpose(1, 2)
        kh = k.view(bs, -1, self.n_heads, self.head_dim).transpose(1, 2)
        scores = torch.matmul(qh, kh.transpose(2, 3))  # (bs, n_heads, qlen, klen)
        wrong = torch.matmul(qh, kh.transpose(2, 3))  # (qlen, n_heads, qlen, klen)
        return scores, wrong
'''
    r = analyze_source(src, "m.py")
    shown = {v["name"]: v["shape"] for v in r.infer_json()["values"]}
    assert shown["scores"][2:] == ["?", "?"]
    assert [d.line for d in r.diagnostics if d.code == "SH204"] == [15]


def test_a_quotient_equal_to_the_named_size_under_a_divisibility_is_not_contradicted():
    """DistilBERT-style head split in a nested helper: the `-1` of `view(bs, -1, h, dim // h)`
    is `(dim*T)//(h*(dim//h))`, which is `T` whenever `h` divides `dim` (a constructor's check
    the method does not know): a comment naming `q_length` there is not contradicted (it got 9
    false SH204 warnings). A name no input makes equal is still reported."""
    src = '''import torch


class Attn(torch.nn.Module):
    def __init__(self, n_heads: int, dim: int):
        super().__init__()
        self.n_heads, self.dim = n_heads, dim

    def forward(self, q: torch.Tensor):
        bs, q_length, dim = q.size()
        dim_per_head = self.dim // self.n_heads

        def shape(x):
            return x.view(bs, -1, self.n_heads, dim_per_head).transpose(1, 2)

        qh = shape(q)  # (bs, n_heads, q_length, dim_per_head)
        bad = shape(q)  # (q_length, n_heads, q_length, dim_per_head)
        return qh, bad
'''
    r = analyze_source(src, "m.py")
    shown = {v["name"]: v["shape"] for v in r.infer_json()["values"]}
    assert shown["qh"][0] == "bs" and "//" in shown["qh"][2]  # (the quotient is what is inferred)
    assert [d.line for d in r.diagnostics if d.code == "SH204"] == [17]
