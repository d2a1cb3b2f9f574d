"""End to end with a real third-party client: headless Neovim 0.7 runs neovim_check.lua,
which starts `shapehint lsp`, opens the CNN example, reads the diagnostic, the hover shape and
applies a code action. Skipped only when `nvim` is not on PATH (CI installs it)."""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent
ROOT = HERE.parent.parent
EXAMPLE = ROOT / "tests" / "lsp" / "examples" / "cnn.py"

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim not on PATH")]


def test_neovim_hover_diagnostic_and_code_action(tmp_path):
    work = tmp_path / "cnn.py"
    work.write_text(EXAMPLE.read_text())
    report = tmp_path / "report.json"
    env = {**os.environ,
           "SHAPEHINT_PYTHON": sys.executable, "SHAPEHINT_REPORT": str(report), "SHAPEHINT_HOVER_LINE": "18",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "server"), os.environ.get("PYTHONPATH", "")]),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    proc = subprocess.run(["nvim", "--headless", "--clean", "-n", "-u", "NONE",
                           "-c", f"luafile {HERE / 'neovim_check.lua'}", str(work)],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert report.exists(), f"no report; rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    data = json.loads(report.read_text())
    assert data["ok"], data["message"]
    errors = [d for d in data["diagnostics"] if d["code"] == "SH101"]
    assert errors and errors[0]["lnum"] == 18, data["diagnostics"]  # 0-based: line 19
    assert re.search(r"Tensor\[(B|x\.shape\[0\]), 120\]", data["hover"]), data["hover"]
    assert "Annotate with inferred shape" in data["actions"]
    assert re.fullmatch(r"        h = F\.relu\(self\.fc1\(h\)\)  # \[(B|x\.shape\[0\]), 120\]", data["line_after"])
    assert proc.returncode == 0
