"""One parse at a time (server/shapehint/frontend/pyast.py).

CPython 3.11's AST constructor keeps its recursion count per interpreter: a parse in a second
thread, run while the first thread's conversion is paused by a garbage collection that runs
Python code, leaves the first one with "SystemError: AST constructor recursion depth mismatch".
`_interleave` makes that pause happen on purpose (a gc callback hands the GIL to the other
thread), so the race is deterministic: bare `ast.parse` fails on an interpreter that has the bug,
the parse function with its lock never does. Every parse in the analyzer goes through that one
function (the grep test), and the lock is one per process however the file is loaded.
"""
import ast
import gc
import importlib.util
import pathlib
import re
import sys
import threading

import pytest

from shapehint.frontend import pyast

ROOT = pathlib.Path(__file__).resolve().parents[2]
SERVER = ROOT / "server" / "shapehint"
# many small statements: a conversion long enough for a collection to start inside it
SOURCE = "\n".join("x%d = f(a, b)[0] + c" % i for i in range(2000))


def _nested(parse, depth: int):
    # the other thread parses from a deeper stack, so its reset of the shared count differs
    return _nested(parse, depth - 1) if depth else parse("y = g(1) + 2")


def _interleave(parse):
    """Parse SOURCE in this thread while, at each collection inside it, another thread parses too:
    (this thread's error or None, the other thread's error or None)."""
    go, done = threading.Semaphore(0), threading.Semaphore(0)
    me = threading.current_thread()
    state = {"waiting": True, "stop": False}
    other_error = []

    def callback(phase, info):
        if phase == "start" and state["waiting"] and threading.current_thread() is me:
            go.release()
            if not done.acquire(timeout=0.3):  # the other thread waits for us (the lock): stop asking
                state["waiting"] = False

    def other():
        while go.acquire() and not state["stop"]:
            try:
                _nested(parse, 30)
            except Exception as e:  # noqa: BLE001 — reported to the test
                other_error.append(e)
            done.release()

    thread = threading.Thread(target=other)
    thread.start()
    threshold = gc.get_threshold()
    gc.set_threshold(50)
    gc.callbacks.append(callback)
    try:
        parse(SOURCE)
        mine = None
    except Exception as e:  # noqa: BLE001 — reported to the test
        mine = e
    finally:
        gc.callbacks.remove(callback)
        gc.set_threshold(*threshold)
        state["stop"] = True
        go.release()
        thread.join(10)
    return mine, (other_error or [None])[0]


def test_bare_ast_parse_races_on_this_interpreter_or_is_fixed():
    # documents the bug the lock is for; newer interpreters keep the count per parse
    mine, other = _interleave(lambda text: ast.parse(text))
    if mine is None:
        pytest.skip("this interpreter's ast.parse does not race (%s)" % sys.version.split()[0])
    assert isinstance(mine, SystemError) and "recursion depth mismatch" in str(mine)
    assert other is None


def test_parses_through_the_lock_never_race():
    mine, other = _interleave(pyast.parse)
    assert mine is None and other is None


def test_the_frontend_parses_under_the_lock():
    from shapehint.frontend.parse import parse_module
    mine, other = _interleave(lambda text: parse_module(text).tree)
    assert mine is None and other is None


def test_one_lock_however_the_file_is_loaded():
    # bench/realmodels and devicerun/builders.py (loaded by path) load pyast.py by path too
    spec = importlib.util.spec_from_file_location("_test_pyast_by_path", SERVER / "frontend" / "pyast.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.LOCK is pyast.LOCK
    with pyast.LOCK:  # re-entrant: a caller holding it for a longer read parses inside it
        assert isinstance(mod.parse("x = 1").body[0], ast.Assign)


# the device-run runner scripts run in a process of their own and import nothing from shapehint
STANDALONE = {"devicerun/runner.py", "devicerun/runner_trace.py", "devicerun/runner_bounds.py"}


def test_every_parse_goes_through_the_one_function():
    found = []
    for path in sorted(SERVER.rglob("*.py")):
        rel = path.relative_to(SERVER).as_posix()
        if rel == "frontend/pyast.py" or rel in STANDALONE:
            continue
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"\bast\.parse\(|PyCF_ONLY_AST|from ast import[^\n]*\bparse\b", text):
            found.append("%s:%d" % (rel, text.count("\n", 0, m.start()) + 1))
    assert found == []
