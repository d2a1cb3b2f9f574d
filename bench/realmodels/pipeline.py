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


def compile_server(server: str = SERVER) -> int:
    """Write the bytecode of `server`'s modules, before any timed ShapeHint process starts; the
    number of modules compiled now (0 when all were current).

    Each `shapehint` command is a process of its own, and one that finds no bytecode compiles the
    ~200 modules it imports: ~0.2 s of start-up, a sixth of a typical model file's infer time, and
    paid by every file when PYTHONDONTWRITEBYTECODE is set (as on the benchmark machines), since
    nothing then writes it. An installed ShapeHint has its bytecode (pip compiles on install), so
    the benchmark times that. py_compile writes whatever that variable says; a module edited
    later is recompiled by the import system as usual (the bytecode records its source's mtime)."""
    import compileall
    import io
    import contextlib
    out = io.StringIO()
    with contextlib.redirect_stdout(out):  # compileall prints each module it compiles
        compileall.compile_dir(server, quiet=0)
    return sum(1 for line in out.getvalue().splitlines() if line.startswith("Compiling"))


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
