"""What an analysis returns: diagnostics, per-name values, and the data hover needs.

These are plain data (no parso, no Z3, no LSP types). `to_json` follows the contracts of
DESIGN §4 (`shapehint infer` / `check`). Positions: line 1-based, col 0-based code points.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Optional

from ..shapes.shape import Shape
from ..shapes.values import Span
from .contexts import split, via_of


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


class Entry(NamedTuple):
    """A module-level nn.Module class with a `forward`, or a public module-level function: what
    a device run can start from."""

    kind: str  # "class" | "function"
    qualname: str
    name: str
    line: int  # of the `class`/`def` keyword
    col: int


@dataclass
class DimInfo:
    """Where a symbol comes from and what is known about it (for hover)."""

    name: str
    origin: str  # "parameter x, axis 0" | "annotation on line 3" | "computed on line 7"
    facts: list = field(default_factory=list)  # ["H ≥ 3", "C % 12 == 0"]
    default: Optional[int] = None  # a constructor parameter's or config attribute's default (defaults.py)

    def names_a_local(self) -> bool:
        """Whether this is only a local's name for another symbol (`B, T, C = x.shape` naming
        `x.shape[0]` `B`: executor.name_symbol), not a symbol of that name: a symbol of that name
        (a constructor's `dim`) takes the entry, and the local shadows it where it is one."""
        return self.origin.endswith(f", named `{self.name}`")


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


class Pending:
    """Records not built yet: the language server publishes diagnostics as soon as they exist
    and builds the records (hover, inlay hints, code actions) right after, off the edit's
    critical path. `get()` runs the builder once, under a lock (a hover on the event loop may
    race the worker), and drops it: a built result holds nothing of the analysis."""

    def __init__(self, build):
        self._build = build
        self._value = None
        self._lock = threading.Lock()

    def ready(self) -> bool:
        return self._build is None

    def get(self) -> list:
        if self._build is not None:
            with self._lock:
                if self._build is not None:
                    self._value = self._build()
                    self._build = None
        return self._value


class _LineIndex:
    """line -> the records whose span covers it, built on first use (a cache the result owns)."""

    def __init__(self):
        self._table = None

    def get(self, build) -> dict:
        if self._table is None:
            self._table = build()
        return self._table


@dataclass(frozen=True, eq=False)
class AnalysisResult:
    """What one analysis found, as plain data: frozen (no attribute can be set after the
    analysis; a changed copy is `dataclasses.replace(result, ...)`), and holding nothing of the
    interpreter. What needs the live analysis (the questions, re-analysing a function) goes
    through its `AnalysisSession` (session.py)."""

    path: str
    text: str
    diagnostics: list = field(default_factory=list)
    records: Any = field(default_factory=list, repr=False)  # [ValueRecord] in source order, or Pending
    dims: dict = field(default_factory=dict)  # symbol name -> DimInfo
    functions: dict = field(default_factory=dict)  # qualname -> Span of the def
    stats: dict = field(default_factory=dict)  # e.g. {"reanalysed": [...], "solver_queries": n}
    comments: Optional[dict] = None  # line -> comment text, when the text parsed without errors
    failures: tuple = ()  # Failure records, in the order the analysis found them
    entries: tuple = ()  # Entry: what a device run can start from (run lenses)
    _index: _LineIndex = field(default_factory=_LineIndex, init=False, repr=False, compare=False)

    @property
    def values(self) -> list:
        r = self.records
        return r.get() if isinstance(r, Pending) else r

    def values_ready(self) -> bool:
        return not isinstance(self.records, Pending) or self.records.ready()

    def line_index(self) -> dict:
        """line -> the records whose span covers it (hover asks per position; a scan of every
        record costs a millisecond on a 2,000-line module). Built on first use."""
        return self._index.get(self._by_line)

    def _by_line(self) -> dict:
        by_line: dict = {}
        for v in self.values:
            for ln in range(v.span.line, v.span.end_line + 1):
                by_line.setdefault(ln, []).append(v)
        return by_line

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
    the line ran in one, as `detail`, and, when that is not the caller, the call sites that led to
    the call from the function whose names the shape is in, as `via` (contexts.CallContext)."""
    where, detail = split(label)
    out = {"context": where, "shape": shape.to_json() if shape is not None else None}
    if detail:
        out["detail"] = detail
    if len(via_of(label)) > 1:  # (a call made by the analysed function itself: its label says it all)
        out["via"] = list(via_of(label))
    return out

