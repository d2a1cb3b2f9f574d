"""One file's diagnostics for `shapehint check`, within a per-file time budget.

Runs in the CLI's process or in a pool worker (`pool.py`) alike, so `--jobs 1` and `--jobs N`
give the same answers. The result is plain JSON data, as cached (`cache.py`).

The budget is wall-clock time: the analysis polls its `cancel` object, which says "stop" once
the deadline has passed, and the Z3 contexts it registered are interrupted at that moment. A
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

BUDGET_CODE = "SH005"
DEFAULT_BUDGET_S = 20.0


class Deadline:
    """A `cancel` object for `analyze_source` that is set once `seconds` have passed."""

    def __init__(self, seconds: float):
        self.at = time.monotonic() + seconds
        self._callbacks: list = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def is_set(self) -> bool:
        return time.monotonic() >= self.at

    def on_cancel(self, fn) -> None:
        with self._lock:
            self._callbacks.append(fn)
        if self.is_set():
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
        self._timer.cancel()
        with self._lock:
            self._callbacks = []


def budget_note(budget_s: float):
    from ..analysis.result import Diagnostic
    return Diagnostic(1, 0, 1, 0, "information", BUDGET_CODE,
                      f"analysis stopped after {budget_s:g} s, the per-file time budget (--time-budget): "
                      "this file's shapes are not checked")


def analyse(path: str, text: str, config, budget_s: Optional[float]) -> dict:
    """{"diagnostics": [...], "seconds": float, "budget": seconds when it ran out, else None}.
    Never raises (the analysis turns its own failures into no diagnostics)."""
    from ..analysis.api import analyze_source
    from ..analysis.frames import Cancelled
    start = time.perf_counter()
    deadline = Deadline(budget_s) if budget_s else None
    ran_out = None
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
    return {"diagnostics": [d.to_json() for d in diags], "budget": ran_out,
            "seconds": round(time.perf_counter() - start, 4)}
