"""An entry whose forward is inherited: from a base of the same file (the base's method is what
runs and what the signature is read from), or from another module (only --input can say its
inputs: a clear refusal without it, never a traceback)."""
import subprocess
import sys

from shapehint.devicerun import api

from .helpers import cli_env

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
                         capture_output=True, text=True, env=cli_env(), timeout=300)
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


BASE = """import torch.nn as nn


class Base(nn.Module):
    def forward(self, x):
        return self.head(self.features(x))
"""
CHILD = """import torch.nn as nn

from .base import Base


class Child(Base):
    def __init__(self, img_size=224):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.head = nn.Linear(4 * img_size * img_size, 10)

    def features(self, x):
        y = self.conv(x)
        return y.flatten(1)
"""


def test_a_method_inherited_from_another_module_of_the_package_runs_without_input(tmp_path):
    """`class Child(Base)` whose forward is the package's `base.py`'s: the analysis follows the
    import and sees `forward(self, x)`, but infers no signature for another module's method, so
    the common input shapes are tried on meta: the model built for 32-pixel images refuses 224 and
    64 and runs with 32 (issue 26: timm's VisionTransformerDistilled)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(BASE)
    (pkg / "child.py").write_text(CHILD)
    r = api.device_run(str(pkg / "child.py"), entry="Child", build="Child(img_size=32)", device="cpu",
                       infer={"values": []}, timeout=240)
    assert r["error"] is None, r["error"]
    x = r["inputs"]["x"]
    assert x["shape"] == [2, 3, 32, 32] and x["source"] == "inferred" and "Base.forward" in x["reason"], x
    assert [(it["line"], it["observed"]) for it in r["lines"]] == [(13, [2, 4, 32, 32])]
