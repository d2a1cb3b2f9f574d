"""Device run of a module that belongs to a package: its relative imports resolve as when Python
imports it (a user opens site-packages' torchvision/models/resnet.py or their repository's
mypkg/model.py and runs it)."""
from shapehint.devicerun import api

LAYERS = """import torch.nn as nn


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, 2 * c, 3, padding=1)

    def forward(self, x):
        return self.conv(x)
"""

MODEL = """import torch
import torch.nn as nn

from .layers import Block
from . import layers


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(3)
        self.head = layers.Block(6)

    def forward(self, x):
        y = self.block(x)
        z = self.head(y)
        return z
"""


def write_package(tmp_path, outer="mypkg", inner="models"):
    pkg = tmp_path / outer / inner
    pkg.mkdir(parents=True)
    (tmp_path / outer / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("from .model import Net\n")
    (pkg / "layers.py").write_text(LAYERS)
    (pkg / "model.py").write_text(MODEL)
    return pkg / "model.py"


def test_a_package_module_runs_with_its_relative_imports(tmp_path):
    path = write_package(tmp_path)
    res = api.device_run(str(path), entry="Net", device="cpu", inputs={"x": [2, 3, 8, 8]},
                         infer={"values": []}, timeout=120)
    assert res["error"] is None, res["error"]
    seen = {(it["line"], it["name"]): it["observed"] for it in res["lines"]}
    lines = MODEL.splitlines()
    y_line = 1 + next(i for i, t in enumerate(lines) if "y = self.block(x)" in t)
    assert seen[(y_line, "y")] == [2, 6, 8, 8]
    assert seen[(y_line + 1, "z")] == [2, 12, 8, 8]


def test_a_file_in_a_plain_folder_still_imports_its_siblings(tmp_path):
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "model.py").write_text(MODEL.replace("from .layers", "from layers").replace("from . import", "import"))
    res = api.device_run(str(tmp_path / "model.py"), entry="Net", device="cpu", inputs={"x": [1, 3, 4, 4]},
                         infer={"values": []}, timeout=120)
    assert res["error"] is None, res["error"]
    assert [it["observed"] for it in res["lines"] if it["name"] == "z"] == [[1, 12, 4, 4]]


REGISTRY = """_MODELS = {}


def register(fn):
    if fn.__name__ in _MODELS:
        raise ValueError("registered twice: " + fn.__name__)
    _MODELS[fn.__name__] = fn
    return fn
"""


def test_a_package_module_its_package_imports_too_runs_once(tmp_path):
    # The package's __init__ imports the module; a second copy would register its factory twice.
    path = write_package(tmp_path)
    (path.parent / "registry.py").write_text(REGISTRY)
    path.write_text(MODEL + "\n\nfrom .registry import register\n\n\n@register\ndef small_net():\n    return Net()\n")
    res = api.device_run(str(path), entry="Net", device="cpu", inputs={"x": [2, 3, 8, 8]},
                         infer={"values": []}, timeout=120, build="small_net()")
    assert res["error"] is None, res["error"]
    assert [it["observed"] for it in res["lines"] if it["name"] == "z"] == [[2, 12, 8, 8]]


def test_unsaved_text_of_a_package_module_runs_as_typed(tmp_path):
    path = write_package(tmp_path)
    edited = MODEL.replace("self.head = layers.Block(6)", "self.head = layers.Block(6)\n        self.tail = Block(12)") \
                  .replace("        return z", "        w = self.tail(z)\n        return w")
    res = api.device_run(str(path), text=edited, entry="Net", device="cpu", inputs={"x": [1, 3, 4, 4]},
                         infer={"values": []}, timeout=120)
    assert res["error"] is None, res["error"]
    assert [it["observed"] for it in res["lines"] if it["name"] == "w"] == [[1, 24, 4, 4]]
