"""The real-model benchmark end to end on a small offline package written for these tests
(tests/bench/realmodels_fixtures/tinypkg: relative imports, a config object, a stage-building
loop): the same pipeline as on torchvision/timm/transformers, with the fetch step skipped."""
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "realmodels"))
import models as model_list  # noqa: E402
import report  # noqa: E402
import realmodels as run  # noqa: E402  (not `run`: bench/run.py has that name)

FIXTURES = os.path.join(HERE, "realmodels_fixtures")
MODELS = [
    dict(id="tiny_convnet", package="fixture", file="tinypkg/models/convnet.py", entry="TinyNet",
         build="TinyNet()", inputs={"x": {"shape": [2, 3, 32, 32]}}),
    dict(id="tiny_encoder", package="fixture", file="tinypkg/models/encoder.py", entry="TinyEncoder",
         build="TinyEncoder(TinyConfig(num_layers=3))",
         inputs={"input_ids": {"shape": [2, 6], "dtype": "int64", "high": 50}, "pixels": {"shape": [2, 3, 16, 16]}}),
    dict(id="tiny_broken", package="fixture", file="tinypkg/models/encoder.py", entry="TinyEncoder",
         build="TinyEncoder(TinyConfig(hidden_size=30, num_heads=4))",  # 30 % 4: the model itself fails
         inputs={"input_ids": {"shape": [1, 3], "dtype": "int64", "high": 50}, "pixels": {"shape": [1, 3, 8, 8]}}),
]


@pytest.fixture(scope="module")
def result():
    models = run.run_models(MODELS, {"fixture": FIXTURES}, [FIXTURES], jobs=2, timeout=240)
    res = {"commit": "test", "modes": list(run.MODES), "models": models}
    res["totals"] = report.totals(models)
    return json.loads(json.dumps(res))  # what --json writes must survive a round trip


def test_ground_truth_covers_every_executed_tensor_assignment_of_the_file(result):
    enc = result["models"]["tiny_encoder"]
    assert enc["execution"]["error"] is None
    raw = enc["modes"]["raw"]["lines"]
    # the file's own functions, reached through relative imports and a ModuleList of 3 layers
    for key in ("28:qkv", "29:q", "29:k", "29:v", "30:scores", "32:ctx", "43:hidden", "57:tokens", "58:patches",
                "59:hidden", "61:hidden", "62:pooled"):
        assert key in raw, key
    assert "27:B" not in raw  # ints bind symbols but get no verdict
    assert raw["61:hidden"]["observations"] == 1 and raw["43:hidden"]["function"] == "Layer.forward"
    conv = result["models"]["tiny_convnet"]["modes"]["raw"]["lines"]
    assert conv["14:y"]["observations"] == 4  # Block.forward in 4 calls: stride 2 and 1, two widths


def test_every_line_gets_one_verdict_and_counts_add_up(result):
    for mid in ("tiny_convnet", "tiny_encoder"):
        for mode in run.MODES:
            r = result["models"][mid]["modes"][mode]
            assert r["crash"] is None, r["crash"]
            assert {v["verdict"] for v in r["lines"].values()} <= {"right", "partial", "wrong", "missing"}
            c = r["counts"]
            assert c["lines"] == len(r["lines"]) == c["right"] + c["partial"] + c["wrong"] + c["missing"] > 0
            assert r["false_errors"] == []  # the fixture models run, so no error may be reported
            assert r["infer_s"] > 0


def test_annotated_mode_asserts_the_entry_inputs_and_maps_lines_back(result):
    ann = result["models"]["tiny_encoder"]["modes"]["annotated"]
    assert ann["assertion"] == "assert input_ids.shape == (2, 6); assert pixels.shape == (2, 3, 16, 16)"
    assert set(ann["lines"]) == set(result["models"]["tiny_encoder"]["modes"]["raw"]["lines"])
    # with the entry's input fixed, the entry's own lines are concrete where the input decides
    # them; what the config decides stays in its attributes (the config built for the run is not in
    # the file: its class's defaults are not facts), and the referee binds them to the run's
    assert ann["lines"]["59:hidden"]["example"]["shape"][0] == 2
    assert "config." in ann["lines"]["59:hidden"]["example"]["shape"][2]
    assert ann["lines"]["59:hidden"]["verdict"] == "right"


def test_a_model_that_does_not_run_is_reported_not_scored(result):
    broken = result["models"]["tiny_broken"]
    assert broken["execution"]["error"]["type"] == "RuntimeError"
    assert "tiny_broken" in result["totals"]["execution_failures"]
    assert result["totals"]["all"]["raw"]["models"] == 2
    md = report.render(result)
    assert "| tiny_broken |" in md and "did not run: RuntimeError" in md


def test_the_committed_list_is_well_formed():
    ids = [m["id"] for m in model_list.MODELS]
    assert len(ids) == len(set(ids)) >= 40
    assert {m["package"] for m in model_list.MODELS} == set(model_list.PACKAGES)
    for m in model_list.MODELS:
        assert m["file"].startswith(m["package"] + "/") and m["file"].endswith(".py")
        assert m["inputs"] and all(s["shape"] for s in m["inputs"].values())
        compile(m["build"], m["id"], "eval")
    with pytest.raises(SystemExit):
        run.select(model_list.MODELS, "no_such_model", None)
    assert [m["id"] for m in run.select(model_list.MODELS, "hf_bert,tv_resnet18", None)] == ["tv_resnet18", "hf_bert"]
    assert all(m["package"] == "timm" for m in run.select(model_list.MODELS, None, "timm"))
