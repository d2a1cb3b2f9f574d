"""`shapehint run FILE` without --input: the inferred signature's typical input, on CPU and meta."""
import os
import subprocess
import sys

import pytest

from shapehint.devicerun import api

from .test_signatures import SERVER, program

MODELS = {"lenet.py": ("LeNet", [2, 1, 28, 28], "float32"), "resnetish.py": ("ResNetish", [2, 3, 224, 224], "float32"),
          "vitish.py": ("ViTish", [2, 3, 224, 224], "float32"), "tokens.py": ("TinyLM", [2, 32], "int64")}


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_runs_with_the_inferred_input_and_agrees_on_every_line(name, device):
    entry, shape, dtype = MODELS[name]
    path = program(name)
    r = api.device_run(path, device=device, timeout=300)  # (a loaded machine's meta dry run)
    assert r["error"] is None, r["error"]
    assert r["entry"] == entry
    (pname, spec), = r["inputs"].items()
    assert spec["shape"] == shape and spec["dtype"] == dtype
    assert spec["source"] == "inferred" and spec["reason"].startswith(f"inferred from {entry}.forward")
    assert r["mismatches"] == [] and r["summary"]["match"] >= 1
    assert all(it["status"] in ("match", "not-inferred") for it in r["lines"])
    from shapehint.devicerun.run_command import format_text
    assert f"  input {pname}: inferred from {entry}.forward" in format_text(r)


def test_an_input_nothing_fixes_is_refused_in_one_line():
    out = subprocess.run([sys.executable, "-m", "shapehint.cli", "run", program("refused.py"), "--device", "meta"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=SERVER), timeout=300)
    # the code fixes no rank it follows (its helper is opaque), so the common input shapes were tried
    # on meta before refusing: the stderr says what was about to run, then the refusal in one line
    assert out.returncode == 2 and out.stdout == ""
    assert "Traceback" not in out.stderr
    refusal = out.stderr.strip().splitlines()[-1]
    assert refusal.startswith("shapehint run: no input can be found for x of Mystery.forward")
    assert "--input x=" in refusal and "the first try on meta failed" in refusal


def test_a_rank_the_code_leaves_open_runs_with_a_common_shape_at_the_built_size():
    # F.conv2d with a weight the analysis cannot read: no rank is followed through the body; the
    # common image shapes are tried on meta, the model's own `img_size=32` among them
    r = api.device_run(program("opaque_patches.py"), entry="PatchNet", build="PatchNet(img_size=32)", device="cpu",
                       timeout=300)
    assert r["error"] is None, r["error"]
    spec = r["inputs"]["x"]
    assert spec["shape"] == [2, 3, 32, 32] and spec["source"] == "inferred"
    assert "does not fix the rank of x" in spec["reason"]
    assert [(it["name"], it["observed"]) for it in r["lines"]] == [("t", [2, 16, 4, 4]), ("t", [2, 16, 16])]


def test_a_factory_that_builds_the_model_does_not_make_its_forward_a_helper(tmp_path):
    # a construction context runs forward on inputs of its own (issue 27): the factory is no caller
    # that gives the model its inputs, so the model's own signature gives the run's input
    f = tmp_path / "factory.py"
    f.write_text("import torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self, n=4):\n"
                 "        super().__init__()\n        self.fc = nn.Linear(8, n)\n\n    def forward(self, x):\n"
                 "        return self.fc(x)\n\n\ndef small():\n    return Net(2)\n")
    r = api.device_run(str(f), entry="Net", build="small()", device="meta", timeout=300)
    assert r["error"] is None, r["error"]
    assert r["inputs"]["x"]["source"] == "inferred" and r["inputs"]["x"]["shape"][-1] == 8


def test_given_and_annotated_inputs_say_so(tmp_path):
    f = tmp_path / "two.py"
    f.write_text("import torch\n\ndef f(a, b):\n    assert a.shape == (2, 3)\n    return a @ b\n")
    r = api.device_run(str(f), device="meta", inputs={"b": "3,4"}, timeout=120)
    assert r["error"] is None
    assert r["inputs"]["a"]["source"] == "annotation" and r["inputs"]["b"]["source"] == "given"


def test_a_crash_keeps_the_shapes_before_it_and_shows_the_failing_line_operands():
    r = api.device_run(program("crash.py"), device="cpu", inputs={"x": "2,3,8,8"}, timeout=300)
    err = r["error"]
    assert err["type"] == "RuntimeError" and err["line"] == 14
    assert err["operands"] == [{"expr": "flat", "shape": [2, 512], "dtype": "float32"}]
    assert [(it["line"], it["name"], it["observed"]) for it in r["lines"]] == [(12, "h", [2, 8, 8, 8]), (13, "flat", [2, 512])]
    from shapehint.devicerun.run_command import format_text
    assert "  operand flat: [2, 512] float32" in format_text(r)


def test_a_rank_the_analysis_chose_past_an_opaque_layer_falls_back_to_a_common_shape_that_runs():
    # `features` is built from data the analysis cannot read: the rank search passes rank 1 (the
    # fewest axes), which a Conv2d rejects; the meta dry run keeps the first common shape that runs.
    r = api.device_run(program("opaque_features.py"), entry="Opaque", device="cpu", timeout=300)
    assert r["error"] is None, r["error"]
    spec = r["inputs"]["x"]
    assert spec["shape"] == [2, 3, 224, 224] and spec["source"] == "inferred"
    assert "the first common input shape that runs on meta" in spec["reason"]
    assert [(it["name"], it["observed"]) for it in r["lines"]] == [("h", [2, 8, 1, 1]), ("f", [2, 8])]
