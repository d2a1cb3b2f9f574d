"""Comparison against hand-made inferred JSON (independent of the engine) and diagnostics."""
import pytest

from shapehint.devicerun import api
from shapehint.devicerun.compare import align, eval_dim, safe_eval, status_of

from .helpers import fixture, line_of, run


def test_safe_eval_accepts_only_arithmetic():
    env = {"H": 32, "C": 12, "x.shape[0]": 2}
    assert safe_eval("(H - 1)//2 + 1", env) == 16
    assert safe_eval("max(H, C) % 7 * 2", env) == 8
    assert safe_eval("x.shape[0] * C", env) == 24
    for bad in ("__import__('os')", "H.__class__", "[H]", "open('x')", "2**1000"):
        with pytest.raises(Exception):
            safe_eval(bad, env)
    assert eval_dim("W + 1", env) == "?" and eval_dim(3, env) == 3 and eval_dim("?", env) == "?"


def test_variadic_alignment_and_binding():
    assert align(["*batch", "D"], [2, 3, 4]) == [("D", 4)]
    assert align(["B", "*rest"], []) is None
    env = {}
    assert status_of(["B", 3, "H", "W"], [2, 3, 32, 32], env) == ("match", [2, 3, 32, 32])
    assert env == {"B": 2, "H": 32, "W": 32}
    assert status_of(["B", "(H - 1)//2 + 1", "W"], [2, 16, 32], env)[0] == "match"
    assert status_of(["B", "H", "W"], [2, 32, 31], env) == ("mismatch", [2, 32, 32])
    assert status_of(["B", "H"], [2, 32, 1], env)[0] == "mismatch"  # rank
    assert status_of(["*x"], [2, 3], env)[0] == "not-inferred"
    assert status_of(["B", "*s", 7], [2, 5, 6, 7], env) == ("match", [2, "?", "?", 7])


def _infer_cnn(text, relu_shape):
    ln = lambda s: line_of(text, s)  # noqa: E731
    return {"values": [
        {"line": ln("y = x.flatten(1)"), "col": 4, "name": "y", "function": "helper", "shape": ["B", "C*H*W"]},
        {"line": ln("z = y[:, :n]"), "col": 4, "name": "z", "function": "helper", "shape": ["B", "n"]},
        {"line": ln("h = F.relu"), "col": 8, "name": "h", "function": "Net.forward", "shape": relu_shape},
        {"line": ln("h = F.max_pool2d"), "col": 8, "name": "h", "function": "Net.forward", "shape": ["B", 8, 16, 16]},
        {"line": ln("h = h * 1"), "col": 12, "name": "h", "function": "Net.forward", "shape": ["B", "C", "H", "W"]},
        {"line": ln("f = helper"), "col": 8, "name": "f", "function": "Net.forward", "shape": ["B", 5]},
        {"line": ln("g = helper"), "col": 8, "name": "g", "function": "Net.forward", "shape": ["B", 7]},
        {"line": ln("out = self.fc"), "col": 8, "name": "out", "function": "Net.forward", "shape": ["B", 10]},
        {"line": ln("y = self.lin(x)"), "col": 8, "name": "y", "function": "Head.forward", "shape": ["B", 4]},
    ]}


def test_agreement_and_a_wrong_inference_on_the_right_line():
    path, text = fixture("cnn.py")
    good = run("cnn.py", entry="Net", infer=_infer_cnn(text, ["B", 8, 32, 32]))
    s = good["summary"]
    assert s["mismatch"] == 0 and s["match"] == 10 and s["agreement"] == 1.0, good["mismatches"]
    assert s["not_executed"] == 1  # Head.forward's line: inferred, not run by this entry
    assert api.to_diagnostics(good, text) == []
    # the helper's B, C, H, W and n are bound per call from that call's arguments
    z = {tuple(it["inferred"]) for it in good["lines"] if it["name"] == "z"}
    assert z == {(2, 5), (2, 7)}
    # a wrong shape on the relu line: one mismatch, there, and an SH501 showing both shapes
    bad = api.assemble(path, text, "cpu", _raw_run(good), _infer_cnn(text, ["B", 8, 32, "2*16 + 1"]))
    assert [(m["line"], m["name"]) for m in bad["mismatches"]] == [(line_of(text, "h = F.relu"), "h")]
    (d,) = api.to_diagnostics(bad, text)
    assert d["code"] == "SH501" and d["severity"] == "warning" and d["line"] == line_of(text, "h = F.relu")
    assert "[2, 8, 32, 32]" in d["message"] and "[2, 8, 32, 33]" in d["message"] and d["col"] == 8


_RAW = {}


def _raw_run(result):
    """Re-run the same module once and keep the raw runner JSON (for assemble with other inferences)."""
    if "cnn" not in _RAW:
        from shapehint.devicerun.api import execute
        from shapehint.devicerun.inputs import plan_entries
        path, text = fixture("cnn.py")
        (p,) = plan_entries(text, "Net")
        _RAW["cnn"] = execute({"path": path, "source": text, "device": "cpu", "entries": [p.request()]}, __import__("sys").executable, 60)
    return _RAW["cnn"]


def test_runtime_error_is_sh502_on_its_line():
    r = run("bad.py", entry="crash")
    _, text = fixture("bad.py")
    ln = line_of(text, "z = y @ torch.ones(3, 5)")
    assert r["error"]["line"] == ln and r["error"]["type"] == "RuntimeError"
    assert "shapes cannot be multiplied" in r["error"]["message"]
    diags = api.to_diagnostics(r, text)
    assert [(d["code"], d["severity"], d["line"], d["col"]) for d in diags] == [("SH502", "error", ln, 4)]
    # the lines before the failure were observed
    assert [it["observed"] for it in r["lines"] if it["name"] == "y"] == [[2, 4]]


def test_contexts_in_the_inference_are_accepted():
    path, text = fixture("cnn.py")
    ln = line_of(text, "z = y[:, :n]")
    infer = {"values": [{"line": ln, "col": 4, "name": "z", "function": "helper", "shape": ["B", "?"],
                         "contexts": [{"context": "a", "shape": ["B", 5]}, {"context": "b", "shape": ["B", 7]}]}]}
    r = api.assemble(path, text, "cpu", _raw_run(None), infer)
    assert {it["status"] for it in r["lines"] if it["line"] == ln} == {"match"}


def test_a_context_is_found_by_its_call_site():
    from shapehint.devicerun.compare import _context_shape
    cand = {"contexts": [{"context": "Net.forward:12", "shape": ["B", 5]},
                         {"context": "Net.forward:13", "shape": ["B", 7]}]}
    assert _context_shape(cand, "Net.forward:13") == ["B", 7]  # (DESIGN §4's `QUALNAME:LINE`)
    assert _context_shape(cand, "Net.forward:1") is None and _context_shape(cand, "entry:Net") is None


def test_a_call_site_that_reaches_several_instances_or_names_another_functions_dims_gives_no_shape():
    """(issue 24) One Sequential's blocks share their call site; a context with `via` is written
    in the names of a function further up, which the call's own bindings do not give."""
    from shapehint.devicerun.compare import _context_shape, _judge
    blocks = {"contexts": [{"context": "Net.forward:12", "shape": ["x.shape[0]", 8]},
                           {"context": "Net.forward:12", "shape": ["x.shape[0]", 16]}]}
    assert _context_shape(blocks, "Net.forward:12") is None
    nested = {"shape": ["x.shape[0]", 8], "contexts": [
        {"context": "Stage.forward:40", "via": ["Net.forward:11", "Stage.forward:40"], "shape": ["x.shape[1]", 16]}]}
    assert _context_shape(nested, "Stage.forward:40") is None
    # the block's own x is [2, 16]: read in its names the nested context would match, wrongly
    assert _judge(nested, [2, 16], {"x.shape[0]": 2, "x.shape[1]": 16}, "Stage.forward:40")[0] == "mismatch"


def test_a_model_built_by_a_factory_is_judged_by_that_factorys_construction_context():
    """`Net(widths)` on its own has no shape for `y` (the widths are a list nothing fixes); built
    as `small(classes=5)`, the inference's construction context `small:LINE` gives one, and the
    run is compared with it (before: not-inferred); a context that disagrees is a mismatch."""
    from shapehint.devicerun.api import execute
    from shapehint.devicerun.inputs import plan_entries
    path, text = fixture("factory_widths.py")
    y, z = line_of(text, "y = self.features(x)"), line_of(text, "z = y.mean")
    site = "small:%d" % line_of(text, "return Net(")
    infer = {"values": [
        {"line": y, "col": 8, "name": "y", "function": "Net.forward", "shape": None,
         "contexts": [{"context": site, "shape": ["x.shape[0]", 16, "x.shape[2]", "x.shape[3]"]}]},
        {"line": z, "col": 8, "name": "z", "function": "Net.forward", "shape": ["x.shape[0]", "?"],
         "contexts": [{"context": site, "shape": ["x.shape[0]", 16]}]}]}
    (p,) = plan_entries(text, "Net", inputs={"x": {"shape": [2, 3, 8, 8], "dtype": None}}, build="small(classes=5)")
    raw = execute({"path": path, "source": text, "device": "cpu", "entries": [p.request()]}, __import__("sys").executable, 60)
    got = api.assemble(path, text, "cpu", raw, infer)
    assert {(it["line"], it["status"], tuple(it["inferred"])) for it in got["lines"]} == {
        (y, "match", (2, 16, 8, 8)), (z, "match", (2, "?"))}
    infer["values"][1]["contexts"][0]["shape"] = ["x.shape[0]", 24]
    bad = api.assemble(path, text, "cpu", raw, infer)
    assert [(it["line"], it["observed"], it["inferred"]) for it in bad["mismatches"]] == [(z, [2, 16], [2, 24])]
