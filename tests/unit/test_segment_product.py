"""A `-1` of a view of a tensor of unknown rank: its segment's product, resolved once the rank is
learned (environment.segment_product, ops/families/views.infer_size).

`ids.view(-1, ids.size(-1))` of an unannotated `ids` flattens its leading axes; the rank is
learned only later (`b, t = ids.size()`), and the flattened size used to be a `?` of its own on
every line after it, so a stack reading token ids showed `[?, t, d]` where the names were known.
The size is now the product of the segment's axes, written as that product once the segment's
rank is known (`[b, t]`), unknown where it never is, and not claimed where the sizes given do not
divide the known axes. Every shape claimed is checked against torch (meta tensors)."""
import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''from typing import Optional

import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.emb = nn.Embedding(n, d)

    def forward(self, ids):
        shape = ids.size()
        ids = ids.view(-1, shape[-1])
        h = self.emb(ids)
        b, t = shape
        m = torch.ones(b, t)
        return h + m[:, :, None]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = Stack(100, 32)

    def forward(self, input_ids: Optional[torch.LongTensor] = None):
        out = self.enc(input_ids)
        return out


def three(x):
    y = x.reshape(-1, x.size(-1))
    a, b, c = x.shape
    return y


def never(x):
    y = x.view(-1, x.size(-1))
    return y


def not_divided(x):
    y = x.view(-1, 4)
    a, b = x.shape
    return y
'''


def _values():
    lines = {k + 1: ln.strip() for k, ln in enumerate(PROGRAM.splitlines())}
    out = {}
    for v in analyze_source(PROGRAM, "segprod.py").infer_json()["values"]:
        out[(v["function"], lines[v["line"]])] = v
    return out


def _run():
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "segprod.py", "exec"), ns)
    return torch, ns


def test_flattened_leading_axes_are_named_once_the_rank_is_learned():
    values = _values()
    assert values[("Stack.forward", "ids = ids.view(-1, shape[-1])")]["shape"] == ["b", "t"]
    assert values[("Stack.forward", "h = self.emb(ids)")]["shape"] == ["b", "t", "d"]
    torch, ns = _run()
    ids = torch.zeros(2, 5, dtype=torch.long)
    flat = ids.view(-1, ids.size(-1))
    assert list(flat.shape) == [2, 5]
    h = ns["Model"]()(ids)
    assert list(h.shape) == [2, 5, 32]


def test_the_callers_context_has_the_callers_names():
    values = _values()
    want = ["input_ids.shape[0]", "input_ids.shape[-1]", 32]
    assert values[("Model.forward", "out = self.enc(input_ids)")]["shape"] == want
    assert [c["shape"] for c in values[("Stack.forward", "h = self.emb(ids)")]["contexts"]] == [want]


def test_three_axes_flatten_to_their_product():
    values = _values()
    assert values[("three", "y = x.reshape(-1, x.size(-1))")]["shape"] == ["a*b", "c"]
    torch, ns = _run()
    x = torch.empty(2, 3, 4, device="meta")
    assert list(ns["three"](x).shape) == [2 * 3, 4]


def test_no_rank_learned_the_product_keeps_its_own_name():
    # (named after the parameter's axes, right for every rank: test_product_names.py)
    values = _values()
    assert values[("never", "y = x.view(-1, x.size(-1))")]["shape"][0] == "x.shape[:-1].numel()"
    torch, ns = _run()
    for sizes in [(5,), (2, 5), (2, 3, 5)]:
        assert ns["never"](torch.empty(sizes, device="meta")).shape[0] == torch.Size(sizes[:-1]).numel()


def test_sizes_that_do_not_divide_the_known_axes_claim_nothing():
    shape = _values()[("not_divided", "y = x.view(-1, 4)")]["shape"]
    assert shape[0] == "?" and shape[1] == 4
    torch, ns = _run()
    assert list(ns["not_divided"](torch.empty(3, 8, device="meta")).shape) == [6, 4]
