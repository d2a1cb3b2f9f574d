"""An index holding a boolean mask of unknown rank (ops/families/indexing.py). `m[i] == 1` of a
tensor known only as `[B, T, *rest]` takes an unknown number of dims, so where an ellipsis and the
other indices land is unknown. The rule once counted such a mask as taking no dims, let the
ellipsis swallow every dim, and reported 'too many indices' (SH105) on working code (the
position-id builders of several vision-language models in the whole-tree check)."""
import torch

from shapehint.analysis.api import analyze_source

PROGRAM = '''from typing import Optional
import torch


def positions(input_ids: torch.Tensor, attention_mask: Optional[torch.Tensor] = None):
    if attention_mask is None:
        attention_mask = torch.ones_like(input_ids)
    position_ids = torch.ones(3, input_ids.shape[0], input_ids.shape[1], dtype=input_ids.dtype)
    for i, ids in enumerate(input_ids):
        pos = torch.arange(5).view(1, -1).expand(3, -1)
        position_ids[..., i, attention_mask[i] == 1] = pos
    return position_ids
'''


def test_a_mask_of_unknown_rank_beside_an_ellipsis_is_no_error():
    r = analyze_source(PROGRAM, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    ns: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), ns)
    ids = torch.ones(2, 5, dtype=torch.long)
    for mask in (None, torch.ones(2, 5, dtype=torch.long)):
        assert list(ns["positions"](ids, mask).shape) == [3, 2, 5]  # torch runs it
    shape = next(v["shape"] for v in r.infer_json()["values"] if v["name"] == "position_ids")
    assert shape == [3, "input_ids.shape[0]", "input_ids.shape[1]"]
