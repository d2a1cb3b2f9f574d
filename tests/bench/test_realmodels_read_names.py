"""The real-model referee binds a name the model's file reads off an object even where the object
stores it under another name (bench/realmodels/execute.py `read_names`): a configuration whose
`__getattribute__` maps `hidden_size` to the attribute it keeps (`n_embd`) reads 32 for
`config.hidden_size`, so a shape naming it is judged, not left unbound."""
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


class Config:
    aliases = {"hidden_size": "width"}

    def __init__(self, width=8):
        self.width = width

    def __getattribute__(self, key):
        if key != "aliases" and key in super().__getattribute__("aliases"):
            key = super().__getattribute__("aliases")[key]
        return super().__getattribute__(key)

    @property
    def doubled(self):
        return 2 * self.width


class Net(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.proj = nn.Linear(4, config.hidden_size)
        self.wide = nn.Linear(4, config.doubled)

    def forward(self, x):
        y = self.proj(x)
        return y
'''


def _run(tmp_path, name):
    (tmp_path / (name + ".py")).write_text(MODEL)
    req = {"runner": pipeline.RUNNER, "paths": [str(tmp_path)], "module": name,
           "file": str(tmp_path / (name + ".py")), "build": "Net(Config(width=6))",
           "inputs": {"x": {"shape": [2, 4]}}, "method": "forward"}
    out = execute.run(req)
    assert out["error"] is None, out["error"]
    return out


def test_an_aliased_and_a_computed_attribute_are_bound(tmp_path):
    out = _run(tmp_path, "alias_cfg_model")
    forward = next(i for i in out["invocations"] if i["function"] == "Net.forward")
    attrs = forward["ctor"]["config"]["attrs"]
    assert attrs["width"] == 6
    assert attrs["hidden_size"] == 6  # the alias, as `config.hidden_size` reads it
    assert attrs["doubled"] == 12  # a property the file reads
    look = score.Run(out["invocations"]).lookup(forward, chain=True, own_first=True)
    assert score.evaluate("config.hidden_size", look) == 6
    assert score.judge(["x.shape[0]", "config.hidden_size"], [2, 6], look) == "right"


def test_names_the_file_never_reads_are_not_recorded(tmp_path):
    out = _run(tmp_path, "alias_cfg_model_names")
    forward = next(i for i in out["invocations"] if i["function"] == "Net.forward")
    assert set(forward["ctor"]["config"]["attrs"]) == {"width", "hidden_size", "doubled"}
