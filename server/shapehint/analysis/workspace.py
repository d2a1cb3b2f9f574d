"""Documents, warm per-function summaries, and incremental re-analysis.

Terms (after mypy's fine-grained mode): a function's *key* hashes everything it reads —
its own text, its class's `__init__` and class-level statements (and its user base classes'),
the module-level code that is not a definition (imports, constants, configuration classes),
and the operator-table version. Its *signature* is what callers can observe: its parameter
shapes, its return value, its preconditions (facts) and its provable errors.

After an edit: the module body runs again (imports, classes, module-level calls: the entry
contexts); a function is re-analysed when its key changed, when it is new, or when a function
it depends on changed signature (propagated until stable); every other function's captured
output (observations, diagnostics, layers' in → out, the symbols its facts pin) is restored with
its spans moved by a line diff, and finishing puts observations back in from-scratch order. Tests:
tests/unit/test_incremental.py (re-analysis counts, incremental == from scratch).
"""
from __future__ import annotations

import ast
import hashlib
import re
import weakref
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..ops import registry
from .objects import ClassObj, FuncObj
from .result import AnalysisResult
from .session import AnalysisSession
from .sink import capture, captured_lines, restore
from .frames import Cancelled


@dataclass
class _Entry:
    key: str
    signature: str
    captured: dict
    renames: dict
    deps: Optional[set] = None
    fixed: Optional[dict] = None  # what its facts pin down, for display (hover_facts.fixed_symbols)
    dims: Optional[tuple] = None  # its share of the hover information (hover_facts.logged_dims)


class SummaryCache:
    """Per-document store of function summaries between analyses."""

    def __init__(self):
        self.entries: dict[str, _Entry] = {}
        self.old_lines: list[str] = []
        self.new_lines: list[str] = []
        self._map: Optional[dict] = None
        # modules an earlier run loaded while its functions ran (imports are lazy: imports.py),
        # with their text's digest then: a summary restored now would not load them again, so
        # a change to any of them drops every summary
        self.lazily_loaded: dict[str, str] = {}

    # ---- the line diff ------------------------------------------------------------
    def line_map(self, line: int) -> Optional[int]:
        """Old line -> new line for lines outside the edited region (common prefix and suffix).

        An editor edit is one contiguous region; lines inside it belong to re-analysed functions.
        (A general diff costs O(n²) on big files: half a second for 2,000 lines.)"""
        if self._map is None:
            old, new = self.old_lines, self.new_lines
            pre = 0
            while pre < min(len(old), len(new)) and old[pre] == new[pre]:
                pre += 1
            suf = 0
            while suf < min(len(old), len(new)) - pre and old[-1 - suf] == new[-1 - suf]:
                suf += 1
            self._map = (pre, suf, len(old), len(new))
        pre, suf, n_old, n_new = self._map
        if line <= pre:
            return line
        if line > n_old - suf:
            return line + (n_new - n_old)
        return None

    def _touches_changed(self, captured: dict) -> bool:
        """Whether a capture has a span or diagnostic on an edited line (old numbering)."""
        from bisect import bisect_right
        pre, suf, n_old, _ = self._map
        lines = captured_lines(captured)
        k = bisect_right(lines, pre)  # the first line after the unchanged prefix
        return k < len(lines) and lines[k] <= n_old - suf

    def _identity(self) -> bool:
        """The edit kept every line where it was (same line count): spans need no moving."""
        self.line_map(1)
        return self._map[2] == self._map[3]

    # ---- the incremental run --------------------------------------------------------
    def run(self, it, parsed, analyze_function: Callable) -> list:
        from .hover_facts import logged_dims
        self.new_lines = parsed.lines
        self._map = None
        if any(_file_digest(p) != d for p, d in self.lazily_loaded.items()):
            self.entries, self.lazily_loaded = {}, {}
        eager = set(it.module_lines)  # loaded by the module body: part of every key below
        funcs = {f.qualname: f for f in it.functions}
        it.sink.owner_rank = {"<module>": -1, **{q: i for i, q in enumerate(funcs)}}
        shared = _shared_context(parsed, it)
        class_ctx: dict = {}
        keys = {q: function_key(f, parsed, it, shared, class_ctx) for q, f in funcs.items()}
        deps = {}
        for q, f in funcs.items():  # a function whose key is unchanged depends on the same names
            old = self.entries.get(q)
            deps[q] = old.deps if old is not None and old.key == keys[q] and old.deps is not None \
                else dependencies(f, funcs)
        callers: dict[str, set] = {}
        for q, ds in deps.items():
            for d in ds:
                callers.setdefault(d, set()).add(q)
        dirty = [q for q in funcs if q not in self.entries or self.entries[q].key != keys[q]]
        done: set[str] = set()
        new_entries: dict[str, _Entry] = {}
        while dirty:
            q = dirty.pop(0)
            if q in done:
                continue
            done.add(q)
            it.sink.owner = q
            dims = logged_dims(it, lambda: analyze_function(it, funcs[q]))
            sig = signature(it, q)
            old = self.entries.get(q)
            new_entries[q] = _Entry(keys[q], sig, capture(it.sink, q, it.resolve_shape),
                                    dict(it.sink.renames.get(q, {})), dims=dims)
            if old is None or old.signature != sig:
                dirty.extend(c for c in callers.get(q, ()) if c not in done)
        unmoved = self._identity()
        for q, f in funcs.items():
            if q in done:
                continue
            old = self.entries[q]
            if unmoved and not self._touches_changed(old.captured):
                it.sink.restore_later(old.captured, q)
                it.sink.renames[q] = it.journal.table("rename", old.renames)
                new_entries[q] = _Entry(keys[q], old.signature, old.captured, old.renames, fixed=old.fixed,
                                        dims=old.dims)
            elif restore(it.sink, old.captured, q, self.line_map):
                it.sink.renames[q] = it.journal.table("rename", old.renames)
                moved = old.captured if self._identity() else _moved(old.captured, self.line_map)
                dims = old.dims if self._identity() else _moved_dims(old.dims, self.line_map)
                new_entries[q] = _Entry(keys[q], old.signature, moved, old.renames, fixed=old.fixed, dims=dims)
            else:  # its output touched changed lines (an inlined callee changed): analyse it
                it.sink.owner = q
                dims = logged_dims(it, lambda: analyze_function(it, f))
                done.add(q)
                new_entries[q] = _Entry(keys[q], signature(it, q), capture(it.sink, q, it.resolve_shape),
                                        dict(it.sink.renames.get(q, {})), dims=dims)
        from .hover_facts import fixed_symbols  # of the functions analysed now; restored ones keep theirs
        fixed = fixed_symbols(it)
        for q, e in new_entries.items():
            e.deps = deps.get(q)
            if q in done:
                e.fixed = fixed.get(q)
            elif e.fixed:
                it.sink.fixed_restored[q] = e.fixed
        self.entries = new_entries
        self.old_lines = list(parsed.lines)
        for p in it.module_lines:
            if p not in eager and p not in self.lazily_loaded:
                self.lazily_loaded[p] = _file_digest(p)
        return sorted(done)

    def dims_parts(self) -> dict:
        """Each function's share of the hover information, analysed now or restored."""
        return {q: e.dims for q, e in self.entries.items()}


def _moved_dims(dims: Optional[tuple], line_map) -> Optional[tuple]:
    """A restored share of the hover information with the lines its origins name moved."""
    if dims is None:
        return None
    from .result import DimInfo

    def move(m):
        n = line_map(int(m.group(1)))
        return f"line {n}" if n is not None else m.group(0)
    ops, preds = dims
    return [(force, k, DimInfo(v.name, _LINE.sub(move, v.origin), default=v.default)) for force, k, v in ops], preds


_LINE = re.compile(r"line (\d+)")


def _moved(captured: dict, line_map) -> dict:
    """A restored capture re-expressed in the new lines, for the next diff."""
    from dataclasses import replace
    from ..shapes.values import Span
    obs = []
    from .sink import relabel
    for key, kind, o in captured["obs"]:
        s = key[0]
        o = (relabel(o[0], line_map),) + tuple(o[1:])
        obs.append(((Span(line_map(s.line), s.col, line_map(s.end_line), s.end_col),) + key[1:], kind, o))
    diags = []
    for (line, code, msg), d in captured["diags"]:
        nd = replace(d, line=line_map(d.line), end_line=line_map(d.end_line),
                     related=[replace(r, line=line_map(r.line) or r.line) for r in d.related])
        diags.append(((nd.line, code, msg), nd))
    layer_io = [((Span(line_map(k[0].line), k[0].col, line_map(k[0].end_line), k[0].end_col),) + k[1:], text)
                for k, text in captured.get("layer_io", ())]
    return {"obs": obs, "diags": diags, "layer_io": layer_io,
            "annotated": {line_map(n) for n in captured.get("annotated", ()) if line_map(n) is not None}}


# ---- keys, dependencies, signatures ---------------------------------------------------

def _segment(lines: list, node: ast.AST) -> str:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return "\n".join(lines[start - 1:node.end_lineno])


def module_context(parsed) -> str:
    parts = []
    for st in parsed.tree.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(st, ast.ClassDef) and _is_module_class(st):
            continue
        parts.append(_segment(parsed.lines, st))
    return "\n".join(parts)


def _is_module_class(st: ast.ClassDef) -> bool:
    for b in st.bases:
        text = ast.unparse(b)
        if text.endswith("Module") or text.endswith("Sequential"):
            return True
    return any(isinstance(i, ast.FunctionDef) and i.name == "forward" for i in st.body)


def class_context(cls: Optional[ClassObj], lines: list, seen=None) -> str:
    if cls is None or cls.node is None:
        return ""
    seen = seen or set()
    if id(cls) in seen:
        return ""
    seen.add(id(cls))
    node = cls.node
    parts = [lines[node.lineno - 1]]
    from_init = _attributes_in_init(node)
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if item.name in ("__init__", "__post_init__") or item.name in from_init:
                parts.append(_segment(lines, item))
        else:
            parts.append(_segment(lines, item))
    for b in cls.bases:
        if isinstance(b, ClassObj):
            parts.append(class_context(b, lines, seen))
    return "\n".join(parts)


def _attributes_in_init(cls_node: ast.ClassDef) -> frozenset:
    """Attribute names `__init__` mentions (`self.build()`: `build` shapes the instance too).
    Kept per class node: trees are never mutated, and an edit's re-parse reuses the nodes of the
    classes it did not touch (frontend/splice.py), so only the edited class is walked again."""
    out = _INIT_ATTRS.get(cls_node)
    if out is None:
        names = set()
        for item in cls_node.body:
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                names.update(n.attr for n in ast.walk(item) if isinstance(n, ast.Attribute))
        out = _INIT_ATTRS[cls_node] = frozenset(names)
    return out


_INIT_ATTRS: "weakref.WeakKeyDictionary[ast.ClassDef, frozenset]" = weakref.WeakKeyDictionary()


def _file_digest(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            return hashlib.blake2b(fh.read(), digest_size=16).hexdigest()
    except OSError:
        return ""


def _shared_context(parsed, it) -> str:
    """What every function's key includes: module-level code, imported modules, the rule version."""
    imported = "\n".join(f"{p}:{hash(tuple(ls))}" for p, ls in sorted(it.module_lines.items()))
    return "\n".join((module_context(parsed), imported, registry.VERSION))


def function_key(f: FuncObj, parsed, it, shared: Optional[str] = None, class_ctx: Optional[dict] = None) -> str:
    h = hashlib.sha256()
    if shared is None:
        shared = _shared_context(parsed, it)
    if class_ctx is None:
        class_ctx = {}
    if id(f.cls) not in class_ctx:  # hashed once per class and run: every method includes it
        class_ctx[id(f.cls)] = _digest(class_context(f.cls, parsed.lines))
    if "" not in class_ctx:
        class_ctx[""] = _digest(shared)
    h.update(_segment(parsed.lines, f.node).encode("utf-8", "replace"))
    h.update(class_ctx[id(f.cls)])
    h.update(class_ctx[""])
    return h.hexdigest()


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "replace")).digest()


def dependencies(f: FuncObj, funcs: dict) -> set:
    """Qualnames of functions whose signature `f` observes (calls, instantiated classes)."""
    nodes = [f.node]
    if f.cls is not None and f.cls.node is not None:
        nodes += [i for i in f.cls.node.body if isinstance(i, ast.FunctionDef) and i.name == "__init__"]
    names, attrs = set(), set()
    for root in nodes:
        for n in ast.walk(root):
            if isinstance(n, ast.Name):
                names.add(n.id)
            elif isinstance(n, ast.Attribute):
                attrs.add(n.attr)
    out = set()
    for q in funcs:
        parts = q.split(".")
        if parts[0] in names and q != f.qualname:
            out.add(q)  # a module-level function, or any method of a class used by name
        elif f.cls is not None and len(parts) == 2 and parts[1] in attrs and parts[0] in _class_names(f.cls):
            out.add(q)
    out.discard(f.qualname)
    return out


def _class_names(cls: ClassObj) -> set:
    out = {cls.name}
    for b in cls.bases:
        if isinstance(b, ClassObj):
            out |= _class_names(b)
    return out


def signature(it, q: str) -> str:
    store = it.generic_stores.get(q)
    params = it.param_values.get(q, {})
    rets = it.generic_returns.get(q, [])
    parts = [f"{k}:{_show(it, v)}" for k, v in params.items()]
    parts.append("->" + "|".join(_show(it, r) for r in rets))
    self_obj = params.get("self")
    if q.endswith(".__init__") and hasattr(self_obj, "attrs"):
        # what a constructor builds is part of what callers observe (`self.fc` of an instance)
        parts += [f"self.{k}={_show(it, v)}" for k, v in sorted(self_obj.attrs.items())]
    if store is not None:
        parts += sorted(str(fct.pred) for fct in store.facts)
    parts += sorted(f"{f.code}:{f.message}" for f in it.reporter.failures if f.function == q)
    return "\n".join(parts)


def _show(it, v) -> str:
    from ..shapes.values import TensorV
    if isinstance(v, TensorV):
        return str(it.resolve(v))
    if hasattr(v, "children") and getattr(v, "children", None) is not None:
        return v.describe() + "[" + ",".join(_show(it, c) for c in v.children) + "]"
    if hasattr(v, "attrs") and hasattr(v, "cls"):
        return f"{v.cls.name}(" + ",".join(f"{k}={_show(it, a)}" for k, a in sorted(v.attrs.items())) + ")"
    return v.describe() if hasattr(v, "describe") else type(v).__name__


# ---- documents ----------------------------------------------------------------------

def _replayer(path: str, text: str, cache: SummaryCache, config):
    """Rebuilds the interpreter of the analysis that just filled `cache` (for a released session):
    the same text against a private copy of the summaries it left, so every function is restored
    (the questions re-analyse what they need, as on any warm result) and the document's own cache,
    which may have moved on to a newer version, is not touched."""
    entries, lines = cache.entries, list(cache.old_lines)

    def replay() -> AnalysisSession:
        from .engine import run
        private = SummaryCache()
        private.entries, private.old_lines = dict(entries), list(lines)
        return run(text, path, config=config, cache=private, defer_values=True)
    return replay


@dataclass
class Document:
    path: str
    text: str
    version: Optional[int]
    cache: SummaryCache = field(default_factory=SummaryCache)
    session: Optional[AnalysisSession] = None  # of the latest analysis


class Workspace:
    """Open documents, their warm summaries and the session of each one's latest analysis. Not
    thread-safe: one analysis per document at a time."""

    def __init__(self, config=None):
        self.config = config
        self.docs: dict[str, Document] = {}
        self._parser = None

    def configure(self, config) -> None:
        self.config = config

    def _parse(self, text: str, path: str):
        from ..frontend.parse import IncrementalParser
        if self._parser is None:
            self._parser = IncrementalParser()
        return self._parser.parse(text, path)

    def update(self, path: str, text: str, version: Optional[int] = None, cancel=None, on_store=None) -> AnalysisResult:
        """Analyse the document's new text (only what the edit touched); its session is then
        `session(path)`."""
        from .engine import run
        doc = self.docs.get(path)
        if doc is None:
            doc = self.docs[path] = Document(path, text, version)
        doc.text, doc.version = text, version
        parsed = self._parse(text, path)
        from .api import analyze_session, interrupt_hook
        try:
            session = run(text, path, config=self.config, cancel=cancel, parsed=parsed, cache=doc.cache,
                          on_store=on_store or interrupt_hook(cancel), defer_values=True)
            if not parsed.errors:  # what a tokenizer would find (for suppression comments)
                session = session.replacing(comments=parsed.comments)
            doc.session = session.with_replay(_replayer(path, text, doc.cache, self.config))
        except Cancelled:
            raise
        except (Exception, RecursionError):  # never trust a cache an exception went through
            doc.cache = SummaryCache()
            doc.session = analyze_session(text, path, config=self.config, cancel=cancel)
        return doc.session.result

    def close(self, path: str) -> None:
        self.docs.pop(path, None)
        if self._parser is not None:
            self._parser.forget(path)

    def result(self, path: str) -> Optional[AnalysisResult]:
        doc = self.docs.get(path)
        return doc.session.result if doc and doc.session else None

    def session(self, path: str) -> Optional[AnalysisSession]:
        """The live analysis of the document's latest text (the questions ask it)."""
        doc = self.docs.get(path)
        return doc.session if doc else None
