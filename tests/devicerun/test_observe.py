"""Observation: what the runner records on CPU and meta (no engine needed: inference is empty)."""
import ast
import os
import subprocess
import sys

from shapehint.devicerun import api, runner

from .helpers import fixture, line_of, observed, run


def test_small_cnn_lines_helpers_and_contexts():
    r = run("cnn.py")
    _, text = fixture("cnn.py")
    assert r["error"] is None and r["device"] == "cpu"
    assert r["entry"] == "Net" and r["inputs"]["x"]["shape"] == [2, 3, 32, 32] and r["inputs"]["x"]["dtype"] == "float32"
    assert r["inputs"]["x"]["source"] == "annotation"  # jaxtyping: `Float[Tensor, "B 3 32 32"]`
    ln = lambda s: line_of(text, s)  # noqa: E731
    assert observed(r, ln("h = F.relu"), "h") == [[2, 8, 32, 32]]
    assert observed(r, ln("h = F.max_pool2d"), "h") == [[2, 8, 16, 16]]
    assert observed(r, ln("out = self.fc"), "out") == [[2, 10]]
    # the helper, once per call site, each with its own argument
    z = [it for it in r["lines"] if it["function"] == "helper" and it["name"] == "z"]
    assert {(it["context"], tuple(it["observed"])) for it in z} == {
        (f"Net.forward:{ln('f = helper')}", (2, 5)), (f"Net.forward:{ln('g = helper')}", (2, 7))}
    assert all(it["status"] == "not-inferred" for it in r["lines"])
    # Head needs a constructor argument: skipped, with how to give it
    head = next(e for e in r["entries"] if e["entry"] == "Head")
    assert "d_in" in head["skipped"] and "--arg d_in=" in head["skipped"]
    hints = {(h["line"], h["name"]): h["shapes"] for h in r["observed"]}
    assert hints[(ln("z = y[:, :n]"), "z")] == [[2, 5], [2, 7]]


def test_constructor_argument_and_input_found_by_dry_run():
    r = run("cnn.py", entry="Head", ctor_args={"d_in": "6"})
    assert r["error"] is None, r["error"]
    assert r["inputs"]["x"]["shape"] == [2, 6]  # D solved to the constructor's size on meta
    _, text = fixture("cnn.py")
    assert observed(r, line_of(text, "y = self.lin(x)"), "y") == [[2, 4]]


def test_missing_constructor_argument_is_a_clear_error():
    r = run("cnn.py", entry="Head")
    assert r["error"]["type"] == "UsageError"
    assert "d_in" in r["error"]["message"] and "--arg d_in=VALUE" in r["error"]["message"]
    assert r["lines"] == []


def test_gpt_block_dtypes_ranges_and_nested_modules():
    r = run("gpt.py")
    _, text = fixture("gpt.py")
    assert r["error"] is None, r["error"]
    ents = {e["entry"]: e for e in r["entries"]}
    assert "skipped" in ents["attend"]  # no shape known for q: not guessed
    idx = ents["GPT"]["inputs"]["idx"]
    assert idx["dtype"] == "int64" and idx["high"] == 50  # below the size of the Embedding it feeds
    y = ents["loss_fn"]["inputs"]["y"]
    assert y["dtype"] == "int64" and y["high"] == ents["loss_fn"]["inputs"]["logits"]["shape"][1]
    # the block's C was solved to n_embd by the meta dry run; T and C distinct
    B, T, C = ents["Block"]["inputs"]["x"]["shape"]
    assert B == 2 and C == 32 and T != C
    ctxs = {it["context"] for it in r["lines"] if it["function"] == "Block.forward"}
    assert ctxs == {"entry:Block", f"GPT.forward:{line_of(text, 'x = self.block(x)')}"}
    assert [2, 3, 50] in observed(r, line_of(text, "logits = self.head"), "logits")
    assert observed(r, line_of(text, "loss = F.cross_entropy"), "loss") == [[]]


def test_meta_matches_cpu_and_reports_data_dependent_lines():
    cpu, meta = run("cnn.py", entry="Net"), run("cnn.py", entry="Net", device="meta")
    assert meta["device"] == "meta" and meta["error"] is None
    key = lambda r: sorted((it["line"], it["name"], it["context"], tuple(it["observed"])) for it in r["lines"])  # noqa
    assert key(cpu) == key(meta)
    path, text = fixture("bad.py")
    zl, il = line_of(text, "z = idx * 2"), line_of(text, "idx = y.nonzero()")
    infer = {"values": [{"line": il, "col": 4, "name": "idx", "function": "data_dep", "shape": ["n", 1]},
                        {"line": zl, "col": 4, "name": "z", "function": "data_dep", "shape": ["n", 1]}]}
    r = run("bad.py", entry="data_dep", device="meta", infer=infer, inputs={"x": "3"})
    assert r["error"] is None
    assert r["entries"][0]["not_observable"]["line"] == il
    st = {(it["line"], it["status"]) for it in r["lines"]}
    assert (il, "not-observable") in st and (zl, "not-observable") in st
    r = run("bad.py", entry="data_dep", device="cpu", infer=infer, inputs={"x": "3"})  # on CPU the same lines are observed
    assert {(it["line"], it["status"]) for it in r["lines"] if it["line"] in (il, zl)} == {(il, "match"), (zl, "match")}


def test_runner_is_standalone(tmp_path):
    """runner.py and the parts it loads beside it import only the standard library and torch, and
    run where shapehint is absent, from a folder holding nothing else of ours."""
    here = os.path.dirname(runner.__file__)
    files = [runner.__file__] + [os.path.join(here, part + ".py") for part in runner.PARTS]
    for path in files:
        tree = ast.parse(open(path).read())
        mods = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        mods |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0}
        assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level > 0], path
        assert mods - set(sys.stdlib_module_names) <= {"torch"}, (path, mods)
    # a shadowing `shapehint` that fails on import: the runner must not need the real one
    shadow = tmp_path / "shadow" / "shapehint"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('shapehint must not be imported by the runner')\n")
    copy = tmp_path / "runner.py"
    for path in files:
        (tmp_path / os.path.basename(path)).write_text(open(path).read())
    user = tmp_path / "m.py"
    user.write_text("import torch\n\ndef f(x):\n    y = x * 2\n    return y\n")
    req = ('{"path": "%s", "device": "cpu", "entries": [{"qualname": "f", "kind": "function", '
           '"candidates": [{"x": {"shape": [2, 3]}}]}]}' % user)
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "shadow"))
    out = subprocess.run([sys.executable, str(copy)], input=req, capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)
    import json
    res = json.loads(out.stdout)
    assert res["ok"] and res["calls"][0]["lines"][0]["observed"] == [{"shape": [2, 3], "dtype": "float32"}]


def test_cuda_when_available_else_a_clear_error():
    import torch
    r = run("cnn.py", entry="Net", device="cuda")
    if torch.cuda.is_available():
        assert r["device"] == "cuda" and r["error"] is None and r["lines"]
    else:
        assert "cuda" in r["error"]["message"].lower() and "is_available" in r["error"]["message"]
    assert runner.pick_device(torch, "auto") == ("cuda" if torch.cuda.is_available() else "cpu")


def test_records_are_bounded_and_columns_are_code_points(tmp_path):
    mod = tmp_path / "many.py"
    mod.write_text("import torch\n\n\ndef f(x):\n    assert x.dim() == 1\n    for i in range(1, 200):\n"
                   "        y = x[:i % 7 + 1].repeat(i)\n    \u00e9\u00e9 = 1; z = x * 2\n    return z\n")
    r = api.device_run(str(mod), entry="f", device="cpu", inputs={"x": "7"}, infer={"values": []},
                       limits={"max_shapes": 3})
    ys = [it for it in r["lines"] if it["name"] == "y"]
    assert len(ys) == 3  # 199 distinct shapes executed, 3 kept
    (z,) = [it for it in r["lines"] if it["name"] == "z"]
    assert z["col"] == 12 and z["observed"] == [7]  # "éé = 1; " is 8 code points but 10 UTF-8 bytes
