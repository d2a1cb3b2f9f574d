"""The real-model referee records a constructor's arguments one level deeper than a method's
(bench/realmodels/execute.py `describe`): a configuration's parts (`config.text_config.hidden`)
are bound, so a shape ShapeHint names by such a path is judged, not left unbound."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "realmodels"))
import execute  # noqa: E402
import pipeline  # noqa: E402
import score  # noqa: E402

pytest.importorskip("torch")

MODEL = '''
import torch
from torch import nn


class TextConfig:
    def __init__(self, hidden=8):
        self.hidden = hidden


class Config:
    def __init__(self, text=None):
        self.text_config = TextConfig(**(text or {}))


class Net(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.proj = nn.Linear(4, config.text_config.hidden)

    def forward(self, x):
        y = self.proj(x)
        return y
'''


def test_a_configurations_part_is_bound_in_the_constructors_record(tmp_path):
    (tmp_path / "nested_cfg_model.py").write_text(MODEL)
    req = {"runner": pipeline.RUNNER, "paths": [str(tmp_path)], "module": "nested_cfg_model",
           "file": str(tmp_path / "nested_cfg_model.py"), "build": "Net(Config(text=dict(hidden=6)))",
           "inputs": {"x": {"shape": [2, 4]}}, "method": "forward"}
    out = execute.run(req)
    assert out["error"] is None, out["error"]
    init = next(i for i in out["invocations"] if i["function"] == "Net.__init__")
    config = score.ObjProxy(init["env"]["config"]["attrs"])
    assert config.get("text_config").get("hidden") == 6
    forward = next(i for i in out["invocations"] if i["function"] == "Net.forward")
    assert forward["ctor"]["config"]["attrs"]["text_config"]["attrs"]["hidden"] == 6
