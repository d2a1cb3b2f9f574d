"""The import scan behind the cheap skip and the cache key (project/scan.py, project/deps.py)."""
import os

from shapehint.project import scan as S
from shapehint.project.deps import Project, uses_torch


def names(text):
    return [(i.name, i.level, i.in_function) for i in S.scan(text).imports]


def test_how_torch_is_imported():
    assert S.scan("import torch\n").torch == S.AT_IMPORT
    assert S.scan("import torch.nn as nn\n").torch == S.AT_IMPORT
    assert S.scan("from torch import nn\n").torch == S.AT_IMPORT
    assert S.scan("try:\n    import torch\nexcept ImportError:\n    torch = None\n").torch == S.CONDITIONAL
    assert S.scan("def f():\n    import torch\n    return torch\n").torch == S.IN_FUNCTION
    assert S.scan("import torchvision\nimport tensorflow as tf\n").torch == S.NONE
    assert S.scan("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import torch\nx = 1\n").torch == S.NONE
    assert S.scan('"""\n>>> import torch\n"""\n').torch == S.NONE  # a doctest line


def test_type_checking_ends_at_its_dedent_and_else_runs():
    src = "if TYPE_CHECKING:\n    import torch\nelse:\n    import torch.nn\n"
    assert S.scan(src).torch == S.CONDITIONAL
    src = "def f():\n    if TYPE_CHECKING:\n        import torch\n    import torch\n"
    assert S.scan(src).torch == S.IN_FUNCTION
    src = "if TYPE_CHECKING:\n    import foo\nx = 1\nif is_torch_available():\n    import torch\n"
    assert S.scan(src).torch == S.CONDITIONAL, "a later block at the same indentation is not inside it"
    src = "if TYPE_CHECKING:\n    import foo\ntry:\n    import torch\nexcept ImportError:\n    pass\n"
    assert S.scan(src).torch == S.CONDITIONAL


def test_imported_modules_over_brackets_and_continuations():
    src = ("from .layers import (\n    Block,\n    Head,  # a comment\n)\nimport a.b.c as d, e\n"
           "from ... import x\nfrom .m import \\\n    y\nimport os; import json\n"
           "def f():\n    from .late import g\n")
    got = names(src)
    assert ("layers", 1, False) in got and ("layers.Block", 1, False) in got and ("layers.Head", 1, False) in got
    assert ("a", 0, False) in got and ("a.b", 0, False) in got and ("a.b.c", 0, False) in got and ("e", 0, False) in got
    assert ("x", 3, False) in got and ("m.y", 1, False) in got
    assert ("os", 0, False) in got and ("json", 0, False) in got
    assert ("late", 1, True) in got


def test_uses_torch_through_workspace_modules(tmp_path):
    (tmp_path / "layers.py").write_text("import torch\nclass Block(torch.nn.Module):\n    pass\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from layers import Block\n")  # a re-export, no torch
    (tmp_path / "optional.py").write_text("try:\n    import torch\nexcept ImportError:\n    torch = None\n")
    (tmp_path / "lazy.py").write_text("def f():\n    import torch\n")
    (tmp_path / "model.py").write_text("from layers import Block\n")
    (tmp_path / "via_pkg.py").write_text("from pkg import Block\n")
    (tmp_path / "config.py").write_text("import optional\nimport lazy\nclass Config:\n    size = 3\n")
    (tmp_path / "tf_model.py").write_text("import tensorflow as tf\nimport config\n")
    (tmp_path / "late.py").write_text("def f():\n    import layers\n")
    p = Project()
    assert p.uses_torch(str(tmp_path / "model.py")) and p.uses_torch(str(tmp_path / "via_pkg.py"))
    assert p.uses_torch(str(tmp_path / "optional.py")) and p.uses_torch(str(tmp_path / "lazy.py"))
    assert not p.uses_torch(str(tmp_path / "config.py")), "only unconditional top-level imports carry over"
    assert not p.uses_torch(str(tmp_path / "tf_model.py"))
    assert not p.uses_torch(str(tmp_path / "late.py")), "a function-level import is not module-level use"
    assert uses_torch(str(tmp_path / "tf_model.py"), "import torch\n"), "an editor's text wins over the disk"


def test_closure_follows_every_import_and_cycles(tmp_path):
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("import c\ndef f():\n    import d\n")
    (tmp_path / "c.py").write_text("import a\n")
    (tmp_path / "d.py").write_text("x = 1\n")
    (tmp_path / "e.py").write_text("x = 2\n")
    got = Project().closure(str(tmp_path / "a.py"))
    assert [os.path.basename(p) for p in got] == ["b.py", "c.py", "d.py"]


def test_infer_gives_a_file_that_does_not_use_pytorch_no_analysis(tmp_path, capsys):
    import json

    from shapehint import cli
    f = tmp_path / "m.py"
    f.write_text("import tensorflow as tf\n\n\ndef f(x):\n    return x.view(2, 3) + x.view(4, 5)\n")
    assert cli.main(["infer", str(f)]) == 0
    assert json.loads(capsys.readouterr().out)["diagnostics"] == []
    f.write_text(f.read_text().replace("import tensorflow as tf", "import torch"))
    assert cli.main(["infer", str(f)]) == 1
    assert [d["code"] for d in json.loads(capsys.readouterr().out)["diagnostics"]] == ["SH106"]
