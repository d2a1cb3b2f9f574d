"""The two sides of one model, each in its own subprocess with a time limit: execution (ground
truth, `execute.py`) and ShapeHint (`infer --format json` and `check --format json`, run with
PYTHONPATH at the repository's torch-free `server/`)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SERVER = os.path.join(ROOT, "server")
RUNNER = os.path.join(SERVER, "shapehint", "devicerun", "runner.py")


def module_name(rel_file: str) -> str:
    """`torchvision/models/resnet.py` -> `torchvision.models.resnet` (the import the harness makes)."""
    return rel_file[:-3].replace("/", ".")


def execute(model: dict, tree: str, paths: list, timeout: float) -> dict:
    """Build and run `model` from the package tree `tree`; the harness's JSON, or an error record."""
    with tempfile.TemporaryDirectory(prefix="shapehint-rm-") as tmp:
        out = os.path.join(tmp, "out.json")
        req = {"runner": RUNNER, "paths": paths, "module": module_name(model["file"]),
               "file": os.path.join(tree, model["file"]), "build": model["build"],
               "inputs": model["inputs"], "method": model.get("method", "forward"), "out": out}
        with open(os.path.join(tmp, "req.json"), "w") as f:
            json.dump(req, f)
        t0 = time.time()
        try:
            p = subprocess.run([sys.executable, os.path.join(HERE, "execute.py"), os.path.join(tmp, "req.json")],
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": {"type": "Timeout", "message": "execution took over %gs" % timeout}, "invocations": []}
        if not os.path.exists(out):
            return {"error": {"type": "HarnessCrash", "message": "exit %s: %s" % (p.returncode, p.stderr[-2000:])},
                    "invocations": []}
        with open(out) as f:
            res = json.load(f)
        res["wall_s"] = round(time.time() - t0, 2)
        return res


def shapehint(command: str, path: str, timeout: float, cwd: str | None = None) -> dict:
    """`python -m shapehint.cli COMMAND PATH --format json`: {"data", "seconds", "crash"}.

    A crash is a timeout, a traceback, or output that is not the contract's JSON; exit status 1
    (an error diagnostic) is a normal answer."""
    env = dict(os.environ, PYTHONPATH=SERVER)
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, "-m", "shapehint.cli", command, path, "--format", "json"],
                           capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return {"data": None, "seconds": round(time.time() - t0, 2), "crash": "timeout after %gs" % timeout}
    secs = round(time.time() - t0, 2)
    if p.returncode not in (0, 1):
        return {"data": None, "seconds": secs, "crash": "exit %d: %s" % (p.returncode, p.stderr.strip()[-1500:])}
    try:
        return {"data": json.loads(p.stdout), "seconds": secs, "crash": None}
    except ValueError:
        return {"data": None, "seconds": secs, "crash": "not JSON: %s" % (p.stdout[:300] + p.stderr[-1200:])}
