"""A package whose registry names many modules (analysis/imports.py, MAX_MODULES): the analysed
file first reads a registry with a key it does not know, so every arm's name is resolved and
each module it names is loaded (timm's `get_attn` pulls in a dozen attention modules this way);
then its model's block, from another module of the package, builds a layer of a module loaded
only then. With 32 modules for the imports of other modules, the registry's spent the bound and
the layer's module was refused: the layer unknown, and every line after it (timm's
MobileNet-V3 and EfficientNet blocks, whose anti-aliasing helper lives in such a module).
Checked against torch by running the package."""
import os
import sys
import textwrap

import pytest

from shapehint.analysis import imports
from shapehint.analysis.api import analyze_source

KINDS = 40


def _files() -> dict:
    files = {"wide/__init__.py": "", "wide/kinds/__init__.py": ""}
    for i in range(KINDS):
        files[f"wide/kinds/mod{i}.py"] = f"import torch.nn as nn\n\n\nclass K{i}(nn.Identity):\n    pass\n"
    files["wide/registry.py"] = "".join(f"from .kinds.mod{i} import K{i}\n" for i in range(KINDS)) + \
        "\n\ndef get(kind):\n" + "".join(f"    if kind == 'k{i}':\n        return K{i}\n" for i in range(KINDS)) + \
        "    return None\n"
    files["wide/pool.py"] = textwrap.dedent("""\
        import torch.nn as nn


        class Half(nn.Module):
            def __init__(self):
                super().__init__()
                self.p = nn.AvgPool2d(2)

            def forward(self, x):
                return self.p(x)
        """)
    files["wide/blocks.py"] = textwrap.dedent("""\
        import torch.nn as nn

        from .pool import Half


        class Block(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.conv = nn.Conv2d(c, 2 * c, 1)
                self.down = Half()

            def forward(self, x):
                return self.down(self.conv(x))
        """)
    files["wide/m.py"] = textwrap.dedent("""\
        import torch
        import torch.nn as nn

        from .registry import get
        from .blocks import Block


        def pick(kind):
            return get(kind)


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block(4)

            def forward(self, x):
                y = self.block(x)
                return y
        """)
    return files


@pytest.fixture
def pkg(tmp_path):
    for rel, text in _files().items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def _out(pkg):
    path = pkg / "wide/m.py"
    session = analyze_source(path.read_text(), str(path))
    return {v["name"]: v["shape"] for v in session.infer_json()["values"] if v["function"] == "Net.forward"}.get("y")


def test_a_registry_of_many_modules_leaves_the_blocks_module_loadable(pkg):
    sys.path.insert(0, str(pkg))
    try:
        import importlib
        m = importlib.import_module("wide.m")
        torch = pytest.importorskip("torch")
        expected = list(m.Net()(torch.zeros(2, 4, 8, 8)).shape)
    finally:
        sys.path.remove(str(pkg))
        for name in [n for n in sys.modules if n == "wide" or n.startswith("wide.")]:
            del sys.modules[name]
    assert expected == [2, 8, 4, 4]
    got = _out(pkg)
    assert got == ["x.shape[0]", 8, "x.shape[2]//2", "x.shape[3]//2"], got


def test_past_the_bound_the_layer_is_unknown_never_guessed(pkg, monkeypatch):
    monkeypatch.setattr(imports, "MAX_MODULES", 32)
    assert _out(pkg) is None
