"""Inferred input signatures (DESIGN §4 `signatures`): shapes, constraints, typical inputs."""
import json
import os
import subprocess
import sys

import pytest

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.signatures import signatures_json

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(os.path.dirname(os.path.dirname(HERE)), "server")


def program(name):
    return os.path.join(HERE, "programs", name)


def sigs(name):
    path = program(name)
    with open(path, encoding="utf-8") as f:
        result = analyze_session(f.read(), path)
    return {s["function"]: s for s in signatures_json(result)}


def param(sig, name):
    return next(p for p in sig["params"] if p["name"] == name)


def holds(p, dims):
    """Do the signature's constraints hold for concrete dims? (the --assume grammar is Python)"""
    env = {d: v for d, v in zip(p["shape"], dims) if isinstance(d, str)}
    if any(isinstance(d, int) and d != v for d, v in zip(p["shape"], dims)):
        return False
    return all(eval(c, {"__builtins__": {}}, env) for c in p["constraints"])  # noqa: S307


def test_lenet_needs_one_channel_and_sides_that_flatten_to_400():
    x = param(sigs("lenet.py")["LeNet.forward"], "x")
    assert x["shape"] == ["B", 1, "H", "W"] and x["dtype"] == "float32"
    assert x["example"] == [2, 1, 28, 28]  # 28 is the first common size whose flattened size is 400
    assert holds(x, [2, 1, 28, 28]) and holds(x, [5, 1, 31, 28])
    assert not holds(x, [2, 1, 32, 32]) and not holds(x, [2, 3, 28, 28])


def test_resnet_like_takes_three_channels_at_224():
    s = sigs("resnetish.py")
    x = param(s["ResNetish.forward"], "x")
    assert x["shape"] == ["B", 3, "H", "W"] and x["example"] == [2, 3, 224, 224]
    # a block's channels come from its constructor: free in the block's own signature
    assert param(s["Block.forward"], "x")["shape"] == ["B", "C", "H", "W"]


def test_vit_like_sides_divisible_by_the_patch():
    x = param(sigs("vitish.py")["ViTish.forward"], "x")
    assert x["shape"] == ["B", 3, "H", "W"] and x["example"] == [2, 3, 224, 224]
    assert holds(x, [2, 3, 32, 48]) and not holds(x, [2, 3, 200, 224])


def test_token_ids_are_int64_of_rank_two():
    ids = param(sigs("tokens.py")["TinyLM.forward"], "ids")
    assert ids["dtype"] == "int64" and ids["shape"] == ["B", "T"] and ids["example"] == [2, 32]


def test_small_value_sets_are_listed_and_optional_and_non_tensor_params_marked():
    s = sigs("membership.py")["Small.forward"]
    assert [p["name"] for p in s["params"]] == ["x", "mask"]  # `scale` is not a tensor: left out
    x = param(s, "x")
    assert "H in (28, 29)" in x["constraints"]
    assert x["example"] == [2, 1, 28, 224]
    assert holds(x, [2, 1, 29, 6]) and not holds(x, [2, 1, 30, 6]) and not holds(x, [2, 1, 28, 5])
    assert param(s, "mask").get("optional") is True


def test_uninferable_input_has_no_example_and_says_why():
    s = sigs("uninferable.py")["Mystery.forward"]
    assert param(s, "x")["example"] is None and "rank" in s["problem"]


def test_an_input_passed_to_a_callee_the_analysis_cannot_see_gets_no_signature():
    """refused.py's helper module exists, but its operation is looked up at run time: what it
    does to `x` is not followed, so no rank (least of all `[N]`) is vouched for."""
    s = sigs("refused.py")["Mystery.forward"]
    assert param(s, "x")["shape"] is None and param(s, "x")["example"] is None
    assert "rank" in s["problem"]


def test_provable_error_has_no_example(tmp_path):
    f = tmp_path / "bad.py"
    f.write_text("import torch.nn as nn\n\nclass Two(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.a = nn.Conv2d(2, 4, 3)\n        self.b = nn.Conv2d(4, 4, 3)\n\n"
                 "    def forward(self, x):\n        return self.a(x) + self.b(x)\n")
    s = analyze_session(f.read_text(), str(f))
    sig = {g["function"]: g for g in signatures_json(s)}["Two.forward"]
    assert param(sig, "x")["example"] is None and sig["problem"].startswith("no input passes line 10")


def test_infer_json_carries_signatures():
    out = subprocess.run([sys.executable, "-m", "shapehint.cli", "infer", program("vitish.py"), "--format", "json"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=SERVER), timeout=300)
    data = json.loads(out.stdout)
    got = {s["function"]: s for s in data["signatures"]}
    assert set(got) == {"PatchEmbed.forward", "ViTish.forward"}
    for s in got.values():
        for p in s["params"]:
            assert set(p) >= {"name", "shape", "constraints", "example", "dtype"}


def test_the_programs_own_names_are_used(tmp_path):
    f = tmp_path / "names.py"
    f.write_text("import torch\n\n\ndef f(x):\n    B, T, C = x.size()\n    y = x.view(B, T, 4, C // 4)\n    return y\n")
    s = {g["function"]: g for g in signatures_json(analyze_session(f.read_text(), str(f)))}
    x = param(s["f"], "x")
    assert x["shape"] == ["B", "T", "C"] and x["example"] == [2, 32, 32]
    assert holds(x, [3, 5, 8]) and not holds(x, [3, 5, 10])


def test_an_analysis_that_failed_internally_has_no_signatures_and_infer_still_answers(monkeypatch, tmp_path):
    # A bug inside the analysis costs the file its answers (api.analyze_session), never the command.
    import shapehint.analysis.engine as engine

    def broken(*a, **k):
        raise ValueError("simulated analysis bug")
    monkeypatch.setattr(engine, "run", broken)
    session = analyze_session("import torch\ndef f(x):\n    return x.sum()\n", "m.py")
    assert session.result.stats["internal_errors"] == ["ValueError: simulated analysis bug"]
    assert signatures_json(session) == []


def test_ids_reach_an_embedding_a_base_class_of_another_module_builds(tmp_path):
    """`class Fx(lm.LM)` whose forward passes `ids` to `self.embed`, built by the base's
    `__init__` in the sibling module `lm.py` (and to `self.enc`, an encoder class of that module
    holding an Embedding): the ids are int64, as for a base of the same file (before: float32, so
    the typical input and the migration's proposal made the embedding refuse them)."""
    (tmp_path / "lm.py").write_text(
        "import torch.nn as nn\n\nclass Enc(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.tok = nn.Embedding(50, 8)\n\n    def forward(self, toks):\n        return self.tok(toks)\n\n"
        "class LM(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.embed = nn.Embedding(50, 8)\n"
        "        self.enc = Enc()\n        self.head = nn.Linear(8, 50)\n")
    src = ("import lm\n\nclass Fx(lm.LM):\n    def forward(self, ids, other):\n        B, T = ids.shape\n"
           "        assert other.shape == (B, T)\n        return self.head(self.embed(ids)) + self.enc(other)\n")
    path = tmp_path / "fx.py"
    path.write_text(src)
    s = {x["function"]: x for x in signatures_json(analyze_session(src, str(path)))}["Fx.forward"]
    assert param(s, "ids")["dtype"] == "int64" and param(s, "other")["dtype"] == "int64"


def test_a_parameter_of_unknown_rank_with_a_written_leading_axis_gets_a_signature():
    got = sigs("optional_lengths.py")
    assert all("internal error" not in (s.get("problem") or "") for s in got.values()), got
    assert param(got["M.forward"], "input_features")["shape"] == ["B", "T", "D"]
