"""Instances of one class are separate invocations in the run, so each is compared with its own
constructor's sizes (issue 24, tv_googlenet: nine Inception blocks merged into one)."""
from shapehint.analysis.api import analyze_source
from shapehint.devicerun import api

from .helpers import fixture, line_of


def test_two_instances_called_alike_are_each_compared_with_their_own_width():
    path, text = fixture("twin_blocks.py")
    infer = analyze_source(text, path).infer_json()
    r = api.device_run(path, text, entry="Net", device="cpu", infer=infer, timeout=120,
                       inputs={"x": "2,4,8,8"}, build="Net(2)")
    assert r["error"] is None, r["error"]
    y = [it for it in r["lines"] if it["line"] == line_of(text, "y = self.conv(x)") and it["name"] == "y"]
    for ctx in {it["context"].split("#")[0] for it in y}:  # per call site, one invocation per instance
        assert sorted(it["observed"][1] for it in y if it["context"].startswith(ctx + "#")
                      or it["context"] == ctx) == [8, 16]
    assert all(it["status"] == "match" for it in y), y
    assert r["mismatches"] == []
