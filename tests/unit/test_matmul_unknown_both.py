"""A product of two tensors of unknown rank whose right operand names its last two axes ends in
the right one's last axis (ops/families/matmul.py `_matmul_unknown`).

Attention written as a helper of unannotated inputs (`torch.matmul(query, key.transpose(-1, -2))`
with neither rank known) gave no shape; `key.transpose(-1, -2)` is `[*key, key.shape[-1],
key.shape[-2]]`, surely a matrix or a batch of them, so whatever the query's rank (a vector, a
matrix, a batch broadcast with the keys') the product is `[*?, key.shape[-2]]`; the softmax keeps
it. A right operand naming only its last axis may be a vector (the product drops that axis): no
shape. The program is our own; every claim is checked against PyTorch on meta."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

ATTN = '''import torch


def attend(query, key):
    scores = torch.matmul(query, key.transpose(-1, -2))
    probs = torch.softmax(scores, dim=-1)
    return probs


def by_vector(x, v):
    y = torch.matmul(x, v.sum(0))
    return y
'''


def _claimed() -> dict:
    r = analyze_source(ATTN, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    return {v["name"]: v["shape"] for v in r.infer_json()["values"]}


def test_the_product_claims_the_keys_length():
    got = _claimed()
    assert got.get("scores") == ["*?", "key.shape[-2]"], got
    assert got.get("probs") == ["*?", "key.shape[-2]"], got


def test_a_right_operand_that_may_be_a_vector_gives_no_shape():
    assert _claimed().get("y") is None


@pytest.mark.parametrize("query", [(8,), (16, 8), (3, 16, 8), (3, 3, 16, 8), (5, 3, 3, 16, 8)])
@pytest.mark.parametrize("key", [(10, 8), (3, 10, 8), (3, 3, 10, 8), (1, 10, 8)])
def test_the_claim_holds_at_every_rank(query, key):
    ns = {}
    exec(compile(ATTN, "m.py", "exec"), ns)
    meta = dict(device="meta")
    try:
        probs = ns["attend"](torch.empty(*query, **meta), torch.empty(*key, **meta))
    except RuntimeError:
        return  # batch axes that do not broadcast: an error at run time, no shape to hold
    assert probs.shape[-1] == key[-2], (query, key, tuple(probs.shape))
