"""Shared helpers for the device-run tests (paths, one runner call, line lookup)."""
import os
import signal

import pytest

from shapehint.devicerun import api

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")
SERVER = os.path.join(os.path.dirname(os.path.dirname(HERE)), "server")


def cli_env():
    """The environment for a `python -m shapehint.cli` child: the server first, and the caller's own
    PYTHONPATH kept (a machine whose dependencies sit on PYTHONPATH, not site-packages, still runs it)."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (SERVER, os.environ.get("PYTHONPATH")) if p))


def fixture(name):
    path = os.path.join(FIX, name)
    with open(path, encoding="utf-8") as f:
        return path, f.read()


def run(name, entry=None, device="cpu", infer=None, timeout=60, **kw):
    path, text = fixture(name)
    return api.device_run(path, text, entry=entry, device=device, infer=infer if infer is not None else {"values": []},
                          timeout=timeout, **kw)


def line_of(text, needle):
    """1-based line of the first line containing `needle`."""
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(needle)


def observed(result, line, name, function=None):
    return [it["observed"] for it in result["lines"]
            if it["line"] == line and it["name"] == name and (function is None or it["function"] == function)]


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes (its parent, the runner, is gone and init reaps it).
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


needs_sigsegv = pytest.mark.skipif(not hasattr(signal, "SIGSEGV"), reason="POSIX only")
