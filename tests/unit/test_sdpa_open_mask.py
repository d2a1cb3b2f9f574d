"""`F.scaled_dot_product_attention` with a mask the analysis lost (a parameter of unknown rank,
an unknown value): the output is query's batch and length with value's width all the same, the
mask only has to broadcast to the scores (ops/families/attention.py). Before, such a mask made
the rule not apply, and the attention output (with every line after it) was unknown. A mask of
known rank is still checked. Programs are our own; shapes are checked against PyTorch."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

SRC = '''import torch
import torch.nn.functional as F


def attend(q, k, v, mask):
    assert q.shape == (2, 4, 5, 8) and k.shape == (2, 4, 7, 8) and v.shape == (2, 4, 7, 6)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return out
'''


def _out(src):
    r = analyze_source(src, "m.py")
    return r, [v["shape"] for v in r.infer_json()["values"] if v["name"] == "out"]


def test_an_unknown_mask_leaves_the_output_shape_known():
    r, got = _out(SRC)
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    assert got == [[2, 4, 5, 6]], got
    scope = {}
    exec(compile(SRC, "m.py", "exec"), scope)
    q, k, v = torch.zeros(2, 4, 5, 8), torch.zeros(2, 4, 7, 8), torch.zeros(2, 4, 7, 6)
    for mask in (torch.zeros(5, 7), torch.zeros(2, 1, 1, 7, dtype=torch.bool)):
        assert list(scope["attend"](q, k, v, mask).shape) == got[0]


def test_a_mask_of_known_rank_that_cannot_broadcast_is_still_an_error():
    src = SRC.replace("def attend(q, k, v, mask):\n", "def attend(q, k, v, mask):\n    assert mask.shape == (3, 7)\n")
    r, _ = _out(src)
    assert [d.code for d in r.diagnostics if d.severity == "error"] == ["SH106"], r.diagnostics
    with pytest.raises(RuntimeError):
        F = torch.nn.functional
        F.scaled_dot_product_attention(torch.zeros(2, 4, 5, 8), torch.zeros(2, 4, 7, 8), torch.zeros(2, 4, 7, 6),
                                       attn_mask=torch.zeros(3, 7))
