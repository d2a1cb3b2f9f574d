"""A model built for a size its code checks where the analysis cannot see it (a patch embedding
built with `img_size=40` that refuses any other height at run time): `run` without `--input`
still finds an input, among the sizes the construction names, after the signature's typical one."""
import json
import subprocess
import sys

from .helpers import cli_env

SOURCE = """import torch
import torch.nn as nn

_check = getattr(torch, "_" + "assert")  # looked up at run time: the analysis does not follow it


class Net(nn.Module):
    def __init__(self, img_size=224, patch=8, dim=16):
        super().__init__()
        self.img_size = img_size
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        _check(x.shape[2] == self.img_size, "input height does not match the model")
        y = self.proj(x).flatten(2).mean(-1)
        return self.head(y)
"""


def test_a_size_the_model_is_built_for_is_tried_when_the_typical_input_does_not_run(tmp_path):
    f = tmp_path / "built.py"
    f.write_text(SOURCE)
    out = subprocess.run([sys.executable, "-m", "shapehint.cli", "run", str(f), "--entry", "Net",
                          "--build", "Net(img_size=40)", "--device", "cpu", "--format", "json"],
                         capture_output=True, text=True, env=cli_env(), timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["inputs"]["x"]["shape"] == [2, 3, 40, 40], data["inputs"]
    assert data["summary"]["mismatch"] == 0 and data["summary"]["match"] >= 1, data["summary"]
