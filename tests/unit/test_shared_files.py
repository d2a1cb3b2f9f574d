"""shared_files.read_json: the repository's shared/ data, from the installed package
`shapehint._shared`, or, in a source checkout run with only `server/` on the path (the device-run
script on a GPU machine), from the folder beside `server/` (there the device run's input inference
failed with "No module named 'shapehint._shared'")."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from shapehint.shared_files import read_json

REPO = Path(__file__).resolve().parents[2]


def test_installed_it_reads_the_shared_data():
    assert read_json("diagnostics.json") == json.loads((REPO / "shared" / "diagnostics.json").read_text("utf-8"))


def test_a_source_checkout_without_the_package_reads_the_folder_beside_server(tmp_path):
    pkg = tmp_path / "server" / "shapehint"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    shutil.copy(REPO / "server" / "shapehint" / "shared_files.py", pkg)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "commands.json").write_text('{"server": ["shapehint.x"]}')
    probe = ("import sys; sys.path.insert(0, sys.argv[1])\n"
             "try:\n    import shapehint._shared; print('package')\nexcept ModuleNotFoundError: print('no package')\n"
             "from shapehint.shared_files import read_json; print(read_json('commands.json')['server'])")
    # -S: no site-packages, so no editable install can map the package in
    out = subprocess.run([sys.executable, "-S", "-c", probe, str(tmp_path / "server")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["no package", "['shapehint.x']"]
