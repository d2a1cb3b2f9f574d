"""The import rules of pyproject's [tool.importlinter] hold, and `lint-imports` really fails when one
is broken: each bad import is added to a temporary copy of the package, never to the tree."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def lint(root: pathlib.Path) -> subprocess.CompletedProcess:
    exe = shutil.which("lint-imports") or pytest.fail("lint-imports is not installed (pip install -e '.[test]')")
    env = {**os.environ, "PYTHONPATH": str(root / "server")}
    return subprocess.run([exe, "--no-cache"], cwd=root, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def copy(tmp_path):
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(REPO / "server" / "shapehint", tmp_path / "server" / "shapehint",
                    ignore=shutil.ignore_patterns("__pycache__", "_shared"))
    return tmp_path


def add_line(root: pathlib.Path, module: str, line: str) -> None:
    path = root / "server" / (module.replace(".", "/") + ".py")
    path.write_text(path.read_text() + "\n" + line + "\n")


def test_the_tree_keeps_every_contract(copy):
    r = lint(copy)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 broken" in r.stdout


@pytest.mark.parametrize("module, line, contract", [
    ("shapehint.analysis.engine", "import pygls", "pygls and lsprotocol only under lsp/"),
    ("shapehint.devicerun.candidates", "import z3", "z3 only under solver/"),
    ("shapehint.analysis.engine", "from ..questions import common", "Layers"),
    ("shapehint.frontend.splice", "from .parse import ParsedModule", "No import cycle"),
    ("shapehint.devicerun.runner", "from shapehint.shapes import expr", "runner imports nothing"),
    ("shapehint.devicerun.runner_trace", "from ..shapes import expr", "runner imports nothing"),
    ("shapehint.devicerun.runner_bounds", "from ..shapes import expr", "runner imports nothing"),
    ("shapehint.questions.common", "def f():\n    import torch", "torch only in the device-run runner"),
])
def test_a_forbidden_import_breaks_its_contract(copy, module, line, contract):
    add_line(copy, module, line)
    r = lint(copy)
    assert r.returncode == 1, r.stdout + r.stderr
    assert " broken." in r.stdout and ", 0 broken." not in r.stdout, r.stdout
    assert contract in r.stdout.split("Broken contracts", 1)[1], r.stdout


def test_a_module_outside_every_layer_is_refused(copy):
    (copy / "server" / "shapehint" / "stray.py").write_text("x = 1\n")
    r = lint(copy)
    assert r.returncode == 1 and "stray" in r.stdout, r.stdout
