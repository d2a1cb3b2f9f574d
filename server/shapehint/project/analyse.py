"""One file's diagnostics for `shapehint check`, within a per-file time budget.

Runs in the CLI's process or in a pool worker (`pool.py`) alike, so `--jobs 1` and `--jobs N`
give the same answers. The result is plain JSON data, as cached (`cache.py`).

The budget is CPU time of the analysing thread (`Deadline`): the analysis polls its `cancel`
object, which says "stop" once the budget is used, and the Z3 contexts it registered are
interrupted at that moment. A
file that runs out gets no shape diagnostics, only the SH005 note saying so: what was found
before the deadline is not reported, since which part that is depends on the machine's speed.
Step budgets (SH004) stay the deterministic bound; this one stops the rare file that is slow
within them (many solver queries near their time limit) from holding up a whole repository.

Tests: tests/unit/test_check_repo.py (the SH005 note).
"""
from __future__ import annotations

import threading
import time
from typing import Optional

from ..notebook import is_notebook

BUDGET_CODE = "SH005"
DEFAULT_BUDGET_S = 20.0


class Deadline:
    """A `cancel` object for `analyze_source`, set once the CPU clock of the thread that made it
    reaches `until` (`deadline_s`). CPU time, not wall-clock time: on a loaded machine (CI runners, other jobs) a
    file must not run out for waiting on a core. The interpreter polls `is_set` (every 64 steps);
    Z3 queries are interrupted by a watcher thread that reads the same thread's clock."""

    POLL_S = 0.25

    def __init__(self, until: float):
        self.until = until
        self._clock = _thread_clock()
        self._callbacks: list = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._watcher = threading.Thread(target=self._watch, daemon=True)
        self._watcher.start()

    def used(self) -> float:
        return time.clock_gettime(self._clock) if self._clock is not None else time.thread_time()

    def is_set(self) -> bool:
        return self.used() >= self.until

    def on_cancel(self, fn) -> None:
        with self._lock:
            self._callbacks.append(fn)
        if self.is_set():
            self._fire()

    def _watch(self) -> None:
        while not self._done.wait(self.POLL_S):
            if self._clock is not None and self.is_set():
                self._fire()

    def _fire(self) -> None:
        with self._lock:
            callbacks, self._callbacks = self._callbacks, []
        for fn in callbacks:
            try:
                fn()
            except Exception:  # an interrupt of a context already closed
                pass

    def close(self) -> None:
        self._done.set()
        with self._lock:
            self._callbacks = []


def _thread_clock():
    """The CPU clock of the calling thread, readable from another thread (Unix); None where
    there is none (then only the interpreter's own polls stop the analysis)."""
    try:
        return time.pthread_getcpuclockid(threading.get_ident())
    except (AttributeError, OSError):
        return None


def budget_note(budget_s: float):
    from ..analysis.result import Diagnostic
    return Diagnostic(1, 0, 1, 0, "information", BUDGET_CODE,
                      f"analysis stopped after {budget_s:g} s of CPU time, the per-file budget (--time-budget): "
                      "this file's shapes are not checked")


def deadline_s(budget_s: float) -> float:
    """The thread's CPU clock when this file's budget is spent (the clock counts from the
    thread's start: a worker's earlier files are on it)."""
    return time.thread_time() + budget_s


def analyse(path: str, text: str, config, budget_s: Optional[float]) -> dict:
    """{"diagnostics": [...], "seconds": float, "budget": seconds when it ran out, else None}.
    Never raises (the analysis turns its own failures into no diagnostics)."""
    from ..analysis.api import analyze_source
    from ..analysis.frames import Cancelled
    start = time.perf_counter()
    ran_out = None
    deadline = Deadline(deadline_s(budget_s)) if budget_s else None
    try:
        diags = analyze_source(text, path, config=config, cancel=deadline, records=False).diagnostics
    except Cancelled:
        diags, ran_out = [budget_note(budget_s)], budget_s
    finally:
        if deadline is not None:
            deadline.close()
    if diags:  # suppression comments need a tokenize of the file: only when there is something to suppress
        from ..config import apply_config
        diags = apply_config(diags, text, config)
    out = [d.to_json() for d in diags]
    if is_notebook(path):  # `text` is the joined code cells (check._module_text): back to cells
        out = _in_cells(path, out)
    return {"diagnostics": out, "budget": ran_out, "seconds": round(time.perf_counter() - start, 4)}


def _in_cells(path: str, diags: list) -> list:
    """A notebook's diagnostics with `cell` and positions within the cell, its cells' own syntax
    errors included (the joined module is valid, so the analysis sees none of them)."""
    from .. import notebook
    joined = notebook.load(path)
    own = [d.to_json() for d in notebook.cell_diagnostics(joined)]
    merged = sorted(own + diags, key=lambda d: (d["line"], d["col"]))
    return [notebook.map_diagnostic(joined, d, path) for d in merged]
