"""A helper's record joins what its calls agree on, leaving out the calls that lost the value
when their arguments were alike (the loss is then the analysis's, on the same path). A call given
an object of another class, or another function, runs other code: its loss says nothing of the
path the other calls took, so the helper claims no shape (sink.py `_value`, reconfiguration.py
`call_kinds`). The program is tests/unit/values/lost_paths.py; run with torch, the call through
the unfollowed entry gives another rank than the followed one."""
import torch

from .values import answer, program, value_at


def test_the_program_reaches_two_ranks():
    mod = program("lost_paths")
    x = torch.randn(2, 5, 64, device="meta")
    assert tuple(mod.known(x, "plain").shape) == (2, 5, 4, 16)
    assert tuple(mod.unfollowed(x, "flat").shape) == (2, 5, 64)
    assert tuple(mod.with_plain(x).shape) == (2, 5, 4, 16)
    assert tuple(mod.with_flat(x).shape) == (2, 5, 64)


def test_a_registry_of_another_class_that_lost_the_value_leaves_it_unknown():
    out = value_at("lost_paths", "attend", 54, "out")
    assert out["shape"] is None, out
    # the call that followed its entry still lists its shape
    known = [c["shape"] for c in out["contexts"] if c["context"].startswith("known:") and not c.get("via")]
    assert known == [["x.shape[0]", "x.shape[1]", 4, 16]], out


def test_another_function_that_lost_the_value_leaves_it_unknown():
    got = value_at("lost_paths", "run_with", 69, "got")
    assert got["shape"] is None, got


def test_the_analysis_follows_the_other_calls():
    # (what the helpers' records would join without the unfollowed calls: the tests above can fail)
    q = value_at("lost_paths", "attend", 50, "q")
    assert q["shape"] == ["b", 4, "t", 16], q
    vals = {v["function"]: v["shape"] for v in answer("lost_paths")["values"] if v["name"] == "x"}
    assert all(s == ["B", "T", 64] for s in vals.values()), vals
