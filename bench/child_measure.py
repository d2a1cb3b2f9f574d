"""What the profilers (profile_infer.py, profile_contexts.py) share: each measures one
`shapehint infer FILE --format json` in a child process of its own, so that what one file's
analysis warmed (imports, caches, the heap) is not charged to the next one."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(ROOT, "server")


def infer_quietly(path: str) -> float:
    """CPU seconds of `shapehint infer PATH --format json` in this process, its output dropped."""
    from shapehint import cli
    t0, out = time.process_time(), sys.stdout
    sys.stdout = io.StringIO()
    try:
        cli.main(["infer", path, "--format", "json"])
    finally:
        sys.stdout = out
    return time.process_time() - t0


def answer_as_child(argv: list, inside) -> None:
    """In the child (`SCRIPT --inside PATH`): print `inside(PATH)` as JSON and end at once, as
    `cli.entry` ends (no tearing down of the analysis' heap). Otherwise nothing."""
    if argv[:1] == ["--inside"]:
        json.dump(inside(argv[1]), sys.stdout)
        sys.stdout.flush()
        os._exit(0)


def run_child(script: str, path: str) -> dict:
    """What `script --inside PATH` measured, run with this checkout's server."""
    p = subprocess.run([sys.executable, script, "--inside", path], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=SERVER))
    if p.returncode != 0:
        raise SystemExit(p.stderr[-2000:])
    return json.loads(p.stdout)
