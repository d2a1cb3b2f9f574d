"""A helper whose own analysis lost its result's rank, where the calls that kept the value are not
all its calls, claims its own shape, not the join of those calls (analysis/sink.py `_value`).

`scores(module, query, key)` of unannotated operands is `[*?, key.shape[-2]]` by its own analysis.
Its call from `self_attention` keeps the rank (`[b, 4, t, t]`: in the helper's names, its last axis
is `query.shape[2]`); its call from `cross_attention`, given an object of another class, loses the
keys. The join of the calls that kept a value claimed `query.shape[2]` for the last axis: wrong
for the cross call, whose keys are longer than its queries. The program is
tests/unit/values/kept_rank_paths.py; every claim is checked by running it with torch on meta."""
import torch

from .values import program, value_at


def test_the_record_is_the_helpers_own_shape():
    w = value_at("kept_rank_paths", "scores", 18, "w")
    assert w["shape"] == ["*?", "key.shape[-2]"], w
    # the call that kept the rank still lists its own shape
    assert [c["shape"] for c in w["contexts"] if c["context"].startswith("self_attention:")] == \
        [["b", 4, "t", "t"]], w


def test_the_claims_hold_on_both_paths_and_the_calls_join_would_not():
    mod = program("kept_rank_paths")
    x = torch.empty(2, 5, 64, device="meta")
    mine = mod.self_attention(x)
    assert tuple(mine.shape) == (2, 4, 5, 5)
    memory = torch.empty(2, 4, 7, 16, device="meta")
    cross = mod.cross_attention(x, memory)
    assert tuple(cross.shape) == (2, 4, 5, 7)
    assert cross.shape[-1] == memory.shape[-2]  # [*?, key.shape[-2]] holds
    assert cross.shape[-1] != 5  # the calls' join (`query.shape[2]`, the queries' 5) would not
