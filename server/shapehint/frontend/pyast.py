"""Every `ast.parse` of this process, one at a time.

CPython 3.11 keeps the recursion count of its AST constructor in one per-interpreter state, reset
at the start of each conversion and checked at its end: a second thread's parse that runs while
the first one's conversion is paused (a garbage collection in the middle of it runs Python code,
and the GIL can pass) leaves the first with "SystemError: AST constructor recursion depth
mismatch". The language server parses on its analysis worker and on the event loop at once, so
each parse takes the one lock (`compile` of a tree too: it reads the tree back under the same
count). A re-entrant lock: a caller that holds it for a longer read (bench/realmodels) parses
inside it.

The lock is the process's whatever loads this file: the device-run reader (`devicerun/builders.py`)
and bench/realmodels load it by path as well as through the package, and two module objects of it
must still share one lock, so it is kept in `sys.modules` under a name of its own.
Tests: tests/unit/test_pyast_lock.py.
"""
from __future__ import annotations

import ast
import sys
import threading
import types

_HOLDER = "_shapehint_ast_parse_lock"


def _lock():
    holder = sys.modules.get(_HOLDER)
    if holder is None:
        holder = types.ModuleType(_HOLDER, "the process's one lock around ast.parse (shapehint.frontend.pyast)")
        holder.LOCK = threading.RLock()
        holder = sys.modules.setdefault(_HOLDER, holder)
    return holder.LOCK


LOCK = _lock()


def parse(source, mode: str = "exec", **kwargs):
    """`ast.parse`, holding the process's parse lock."""
    with LOCK:
        return ast.parse(source, mode=mode, **kwargs)
