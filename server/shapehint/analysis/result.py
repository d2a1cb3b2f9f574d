"""What an analysis returns: diagnostics, per-name values, and the data hover needs.

These are plain data (no parso, no Z3, no LSP types). `to_json` follows the contracts of
DESIGN §4 (`shapehint infer` / `check`). Positions: line 1-based, col 0-based code points.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, Optional

from ..shapes.shape import Shape
from ..shapes.values import Span
from .contexts import split


@dataclass
class Related:
    line: int
    col: int
    message: str
    file: Optional[str] = None

    def to_json(self) -> dict:
        d = {"line": self.line, "col": self.col, "message": self.message}
        if self.file:
            d["file"] = self.file
        return d


@dataclass
class Diagnostic:
    line: int
    col: int
    end_line: int
    end_col: int
    severity: str  # error | warning | information | hint
    code: str
    message: str
    related: list = field(default_factory=list)
    data: Optional[dict] = None  # extra payload for code actions (e.g. a hole's value)
    # where the analysis found it (not part of the answer: no JSON, no equality): the function
    # whose names its message uses, the callee's (line, code) when it is reported at a call
    # site, the root analysis that made it (for per-function capture, sink.py)
    function: str = field(default="", compare=False, repr=False)
    inner: Optional[tuple] = field(default=None, compare=False, repr=False)
    owner: str = field(default="", compare=False, repr=False)

    @staticmethod
    def at(span: Span, severity: str, code: str, message: str, related=(), data=None) -> "Diagnostic":
        return Diagnostic(span.line, span.col, span.end_line, span.end_col, severity, code, message,
                          list(related), data)

    def to_json(self) -> dict:
        return {"line": self.line, "col": self.col, "end_line": self.end_line, "end_col": self.end_col,
                "severity": self.severity, "code": self.code, "message": self.message,
                "related": [r.to_json() for r in self.related]}


class Failure(NamedTuple):
    """A provable error: the line no admissible input gets past, and why (the questions read
    these: a migration's clash, a hole no value fills)."""

    function: str  # the qualname whose analysis found it
    span: Span
    pred: Any  # shapes.shape.Pred the facts make impossible (FALSE for an error without one)
    code: str
    message: str
    context: str  # "" in the function's own analysis, else the calling context ("called from ...")


@dataclass
class DimInfo:
    """Where a symbol comes from and what is known about it (for hover)."""

    name: str
    origin: str  # "parameter x, axis 0" | "annotation on line 3" | "computed on line 7"
    facts: list = field(default_factory=list)  # ["H ≥ 3", "C % 12 == 0"]
    default: Optional[int] = None  # a constructor parameter's or config attribute's default (defaults.py)


@dataclass
class ValueRecord:
    """A tensor-valued (or shape-int) expression the user can hover, at a span."""

    span: Span
    name: str  # target name, or the expression text
    function: str  # __qualname__ or "<module>"
    shape: Optional[Shape]
    dtype: Optional[str] = None
    kind: str = "tensor"  # tensor | int | layer
    text: str = ""  # int value / layer description when kind != tensor
    is_target: bool = False  # a name bound by an assignment (goes into `infer` values)
    contexts: list = field(default_factory=list)  # [(context label, Shape)]
    has_annotation: bool = False  # line already carries an annotation or matching comment
    layer_io: Optional[str] = None  # "[B, 128] → [B, 10]" for a layer


@dataclass
class AnalysisResult:
    path: str
    text: str
    diagnostics: list = field(default_factory=list)
    values: list = field(default_factory=list)  # ValueRecord, in source order
    dims: dict = field(default_factory=dict)  # symbol name -> DimInfo
    functions: dict = field(default_factory=dict)  # qualname -> Span of the def
    stats: dict = field(default_factory=dict)  # e.g. {"reanalysed": [...], "solver_queries": n}
    comments: Optional[dict] = None  # line -> comment text, when the text parsed without errors

    # ---- records built on first use; the interpreter dropped and replayed -----------------
    # The language server publishes diagnostics as soon as they exist and builds the records
    # (hover, inlay hints, code actions) right after, off the edit's critical path:
    # `defer_values(build)` stores the builder and the first read of `values` runs it (once,
    # under a lock: a hover on the event loop may race the worker). Reading `interp` builds the
    # records first: questions re-analyse functions on the interpreter, which would add to what
    # the records join. `compact()` then drops the interpreter (its sink, stores and the module's
    # objects: most of an open document's memory) when `replay` can rebuild it on demand.

    def defer_values(self, build) -> None:
        self.__dict__["_build_values"] = build

    def values_ready(self) -> bool:
        return self.__dict__.get("_build_values") is None

    def _lock(self):
        lock = self.__dict__.get("_lazy_lock")
        if lock is None:
            import threading
            lock = self.__dict__.setdefault("_lazy_lock", threading.RLock())
        return lock

    def _get_values(self) -> list:
        if self.__dict__.get("_build_values") is not None:
            with self._lock():
                build = self.__dict__.get("_build_values")
                if build is not None:
                    self.__dict__["_values"] = build()
                    self.__dict__["_build_values"] = None
        return self.__dict__["_values"]

    def _set_values(self, values: list) -> None:
        self.__dict__["_build_values"] = None
        self.__dict__["_values"] = values
        self.__dict__["_by_line"] = None

    def line_index(self) -> dict:
        """line -> the records whose span covers it (hover asks per position; a scan of every
        record costs a millisecond on a 2,000-line module). Built on first use."""
        values = self.values
        index = self.__dict__.get("_by_line")
        if index is None or index[0] is not values:
            by_line: dict = {}
            for v in values:
                for ln in range(v.span.line, v.span.end_line + 1):
                    by_line.setdefault(ln, []).append(v)
            index = self.__dict__["_by_line"] = (values, by_line)
        return index[1]

    def set_replay(self, replay) -> None:
        """`replay()` -> an AnalysisResult of the same text whose interpreter can stand in for this one."""
        self.__dict__["_replay"] = replay

    def compact(self) -> None:
        """Build the records, then drop the interpreter when it can be replayed."""
        self.line_index()
        if self.__dict__.get("_replay") is not None:
            with self._lock():
                self.__dict__["_interp"] = None
                self.module_globals = None

    def memo(self, key: str, compute):
        """A value derived from the result once (kept through `compact`)."""
        memo = self.__dict__.setdefault("_memo", {})
        if key not in memo:
            memo[key] = compute()
        return memo[key]

    def _get_interp(self):
        self._get_values()
        it = self.__dict__.get("_interp")
        if it is None and self.__dict__.get("_replay") is not None:
            with self._lock():
                it = self.__dict__.get("_interp")
                if it is None:
                    it = self.__dict__["_interp"] = self.__dict__["_replay"]().interp
        return it

    def _set_interp(self, it) -> None:
        self.__dict__["_interp"] = it

    def infer_json(self) -> dict:
        vals = []
        for v in self.values:
            if not v.is_target or v.kind != "tensor":
                continue
            item = {"line": v.span.line, "col": v.span.col, "name": v.name, "function": v.function,
                    "shape": v.shape.to_json() if v.shape is not None else None}
            if v.contexts:
                item["contexts"] = [_context_json(c, s) for c, s in v.contexts]
            vals.append(item)
        return {"file": self.path, "values": vals, "diagnostics": [d.to_json() for d in self.diagnostics]}

    def values_at(self, line: int, col: int) -> list:
        """Records whose span contains the position, innermost first."""
        hits = [v for v in self.line_index().get(line, ()) if v.span.contains(line, col)]
        hits.sort(key=lambda v: ((v.span.end_line - v.span.line), v.span.end_col - v.span.col))
        return hits


def _context_json(label: str, shape: Optional[Shape]) -> dict:
    """`{"context": "QUALNAME:LINE", "shape": [...]}` (DESIGN §4), the iteration of a loop, when
    the line ran in one, as `detail`."""
    where, detail = split(label)
    out = {"context": where, "shape": shape.to_json() if shape is not None else None}
    if detail:
        out["detail"] = detail
    return out


# after @dataclass, so that its __init__ assigns through them
AnalysisResult.values = property(AnalysisResult._get_values, AnalysisResult._set_values)
AnalysisResult.interp = property(AnalysisResult._get_interp, AnalysisResult._set_interp)
