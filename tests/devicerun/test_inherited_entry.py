"""An entry whose forward is inherited: from a base of the same file (the base's method is what
runs and what the signature is read from), or from another module (only --input can say its
inputs: a clear refusal without it, never a traceback)."""
import os
import subprocess
import sys

from shapehint.devicerun import api

SERVER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "server")
SOURCE = """from collections import OrderedDict

import torch.nn as nn


class Base(nn.Module):
    def forward(self, x):
        y = self.fc(x.flatten(1))
        return y


class Child(Base):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 2)


class Stack(nn.Sequential):
    def __init__(self):
        super().__init__(OrderedDict(fc=nn.Linear(4, 3)))
"""


def test_a_method_inherited_from_another_module_is_refused_in_one_line_without_input(tmp_path):
    f = tmp_path / "inherit.py"
    f.write_text(SOURCE)
    out = subprocess.run([sys.executable, "-m", "shapehint.cli", "run", str(f), "--entry", "Stack", "--device", "meta"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=SERVER), timeout=300)
    assert out.returncode == 2 and out.stdout == "", out.stderr
    assert out.stderr.strip() == ("shapehint run: Stack.forward is inherited from nn.Sequential, defined outside this "
                                  "file: give its inputs with --input NAME=2,3,224,224 (one per tensor argument)")


def test_a_method_inherited_from_another_module_runs_with_its_input(tmp_path):
    f = tmp_path / "inherit.py"
    f.write_text(SOURCE)
    r = api.device_run(str(f), entry="Stack", device="cpu", inputs={"input": [2, 4]}, infer={"values": []},
                       timeout=120)
    assert r["error"] is None, r["error"]
    assert r["inputs"]["input"]["shape"] == [2, 4] and r["inputs"]["input"]["source"] == "given"


def test_a_method_inherited_from_a_base_of_the_file_runs_the_bases_lines(tmp_path):
    f = tmp_path / "inherit.py"
    f.write_text(SOURCE)
    r = api.device_run(str(f), entry="Child", device="cpu", inputs={"x": [2, 3, 4]}, infer={"values": []},
                       timeout=120)
    assert r["error"] is None, r["error"]
    assert [(it["line"], it["name"], it["observed"]) for it in r["lines"]] == [(8, "y", [2, 2])]
