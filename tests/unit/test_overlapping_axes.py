"""A shape with a variadic segment never claims more axes than are known to exist: the axes
named before the segment and those after it may be the same (issue 25, items 4 and 6)."""
from shapehint.analysis.api import analyze_source


def _errors(text):
    return [(d.line, d.code) for d in analyze_source(text, "axes.py").diagnostics if d.severity == "error"]


GATHER = '''import torch


def combine(boxes, emb):
    pts = (boxes[:, :, 0] + boxes[:, :, 2]).long()
    rep = torch.gather(emb, 1, pts.unsqueeze(-1).repeat(1, 1, emb.size(-1)))
    rows = torch.arange(len(pts))[:, None].repeat(1, pts.size(-1))[:, :, None]
    ind = torch.cat([rows, pts[:, :, None]], dim=-1)
    return rep, ind
'''


def test_a_prefix_and_a_suffix_read_from_one_tensor_may_be_the_same_axes():
    # pts is [B, L] when boxes is [B, L, 4]: its two named leading axes and its last axis
    # (pts.size(-1)) are the same axes, and pts[:, :, None] is 3-D like `rows`
    assert _errors(GATHER) == []


def test_more_axes_on_one_side_than_the_operation_takes_still_fail():
    # pts[:, :, :, None] has at least four axes whatever the overlap; `rows` has three
    text = GATHER.replace("pts[:, :, None]], dim=-1)", "pts[:, :, :, None]], dim=-1)")
    assert _errors(text) == [(8, "SH102")]
