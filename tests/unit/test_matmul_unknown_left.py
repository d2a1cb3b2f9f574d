"""A product of a tensor of unknown rank with batched matrices ends in their columns (ops/families/matmul.py).

Attention written as a helper takes its query unannotated while the keys' rank is known from an
unpacking (`b, h, s, d = key.shape`): `torch.matmul(query, key.transpose(2, 3))` gave no shape,
nor did the softmax and the product with the values after it. Whatever the query's rank (a
vector, a matrix, a batch of them broadcast with the keys'), the product's last axis is the
right operand's last: `[*?, s]`, then `[*?, d]` with values `[b, h, s, d]`. The program is our
own; every claim is checked against PyTorch on meta for queries of ranks 1 to 5."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

ATTN = '''import torch


def attend(query, key, value):
    b, h, s, d = key.shape
    b2, h2, s2, d2 = value.shape
    scores = torch.matmul(query, key.transpose(2, 3)) * 0.5
    probs = torch.softmax(scores, dim=-1)
    out = torch.matmul(probs, value)
    return out, probs
'''

WANT = {"scores": ["*?", "s"], "probs": ["*?", "s"], "out": ["*?", "d2"]}


def _claimed() -> dict:
    r = analyze_source(ATTN, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    return {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["function"] == "attend"}


def test_each_product_claims_the_right_operands_columns():
    got = _claimed()
    for name, want in WANT.items():
        assert got.get(name) == want, (name, got.get(name))


@pytest.mark.parametrize("query", [(8,), (16, 8), (3, 16, 8), (3, 3, 16, 8), (5, 3, 3, 16, 8)])
def test_the_claims_hold_at_every_rank_of_the_query(query):
    ns = {}
    exec(compile(ATTN, "m.py", "exec"), ns)
    meta = dict(device="meta")
    key = torch.empty(3, 3, 10, 8, **meta)  # b, h, s, d
    value = torch.empty(3, 3, 10, 7, **meta)  # d2 = 7
    out, probs = ns["attend"](torch.empty(*query, **meta), key, value)
    sizes = {"s": 10, "d2": 7}
    for name, t in (("probs", probs), ("out", out)):
        last = WANT[name][-1]
        assert len(t.shape) >= 1 and t.shape[-1] == sizes[last], (query, name, tuple(t.shape))
