"""The live side of one analysis: its interpreter, for what plain results cannot answer.

An `AnalysisResult` (result.py) is frozen data: diagnostics, records, failures. The questions
(migration Q1/Q2, branches Q3, holes, input signatures) need more — the solver facts of each
function's generic analysis, its parameters' values, the branch records — and may analyse a
function again (one restored from the warm cache has no solver state; a migration tries ranks).
They reach all of that through an `AnalysisSession`: `engine.run` makes one per analysis, the
`Workspace` keeps the latest per document, and the language server hands each snapshot's to the
questions. `release()` drops the interpreter (most of an open document's memory) once it can be
rebuilt (`replay`); the next question replays the analysis on demand.
"""
from __future__ import annotations

import dataclasses
import threading
from typing import Callable, Optional

from .frames import Frame
from .result import AnalysisResult


class AnalysisSession:
    """One analysis's result and the interpreter that made it (replayed after `release`)."""

    def __init__(self, result: AnalysisResult, interp=None, analyse: Optional[Callable] = None,
                 replay: Optional[Callable] = None, memo: Optional[dict] = None):
        self.result = result
        self._interp = interp
        # (interp, FuncObj, again=True): a function's generic analysis (engine.analyze_function,
        # given by the engine, which imports this module); it serves a replayed interpreter too
        self._analyse = analyse
        self._replay = replay  # () -> an AnalysisSession of the same text whose interpreter stands in
        self._lock = threading.RLock()
        self._memo = memo if memo is not None else {}

    def replacing(self, **changes) -> "AnalysisSession":
        """The same analysis with a result changed in those fields (diagnostics after the user's
        configuration, the comments a tokenizer would find)."""
        return AnalysisSession(dataclasses.replace(self.result, **changes), self._interp, self._analyse,
                               self._replay, self._memo)

    def with_replay(self, replay: Callable) -> "AnalysisSession":
        return AnalysisSession(self.result, self._interp, self._analyse, replay, self._memo)

    # ---- the interpreter ------------------------------------------------------------------
    @property
    def interp(self):
        """The live interpreter, replayed when it was released; None when the analysis failed.
        The records are built first: the questions re-analyse functions on the interpreter,
        which would add to what the records join."""
        self.result.values
        it = self._interp
        if it is None and self._replay is not None:
            with self._lock:
                it = self._interp
                if it is None:
                    it = self._interp = self._replay().interp
        return it

    def live(self) -> bool:
        """Whether there is an analysis to ask (an internal error leaves a result without one)."""
        return self._interp is not None or self._replay is not None

    def release(self) -> None:
        """Build the records, then drop the interpreter when it can be replayed."""
        self.result.line_index()
        if self._replay is not None:
            with self._lock:
                self._interp = None

    def memo(self, key: str, compute):
        """A value derived from the analysis once (kept through `release`)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    # ---- what the questions read ------------------------------------------------------------
    def functions(self) -> list:
        it = self.interp
        return list(it.functions) if it is not None else []

    def function(self, qualname: str):
        return next((f for f in self.functions() if f.qualname == qualname), None)

    def ensure_generic(self, only=None) -> None:
        """Functions whose summaries were restored from the warm cache, or that an analysis
        limited to some functions skipped, have no solver state in this run: analyse those now
        (the questions need their facts, branches and failures) — all, or those named in `only`."""
        it = self.interp
        if it is None:
            return
        for f in list(it.functions):
            if only is not None and f.qualname not in only:
                continue
            if f.qualname not in it.generic_stores:
                try:
                    self._analyse(it, f, again=True)
                except Exception:  # the answer for this function is then "unknown"
                    continue

    def generic_frame(self, qualname: str) -> Optional[Frame]:
        """A frame over the function's generic parameters and solver facts (to evaluate an
        assumption in), or None when its analysis did not run to the end."""
        it = self.interp
        params = it.param_values.get(qualname)
        store = it.generic_stores.get(qualname)
        if params is None or store is None:
            return None
        fn = self.function(qualname)
        return Frame(dict(params), qualname, store, fn.globals if fn else {}, record=False)

    def failures(self) -> list:
        """The typed `Failure` records, those of functions analysed since included."""
        return list(self.interp.reporter.failures)
