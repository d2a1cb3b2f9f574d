"""What the mechanism tests of encoder transformers share: a small program's `infer` JSON, and
the program run with torch (the referee of each shape)."""
import json
import os
import subprocess
import sys

SERVER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "server")


def infer(tmp_path, program: str) -> dict:
    f = tmp_path / "m.py"
    f.write_text(program)
    return infer_file(f)


def infer_file(path) -> dict:
    """`infer`'s JSON for a file already written (a module of a small package)."""
    out = subprocess.run([sys.executable, "-m", "shapehint.cli", "infer", str(path), "--format", "json"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=SERVER), timeout=300)
    return json.loads(out.stdout)


def run(program: str) -> dict:
    scope: dict = {}
    exec(compile(program, "m.py", "exec"), scope)
    return scope
