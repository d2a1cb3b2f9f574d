"""Server state between the handlers (handlers.py) and the worker: documents, settings, publishing.

`ShapeHintServer` is the pygls LanguageServer plus what the handlers share: the Worker, the
parsed settings, per-project configs, and the one place that publishes diagnostics (push when
the client has no pull support; otherwise a diagnostic refresh). `CancellingProtocol` makes
`$/cancelRequest` stop the job serving the request (pygls alone only cancels the future).
Tests: tests/lsp/.
"""
from __future__ import annotations

import asyncio
import logging
import os
from typing import Optional

from lsprotocol import types as lsp
from pygls import uris
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from .. import config as cfgmod
from . import notebooks
from .convert import Lines
from .settings import Parsed, effective_config, parse_settings
from .worker import Job, Snapshot, Worker

log = logging.getLogger(__name__)

SECTION = "shapehint"


class _Rejected:
    """A message already answered with an error while it was decoded."""


class CancellingProtocol(LanguageServerProtocol):
    """pygls's protocol, plus: real cancellation, an error answer for requests whose parameters do
    not decode (pygls only logs them, leaving the client waiting forever), and the LSP rule that
    requests before `initialize` get ServerNotInitialized."""

    _seen_initialize = False

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except Exception as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                from pygls.exceptions import JsonRpcInvalidParams
                err = JsonRpcInvalidParams(f"invalid parameters for {data.get('method')}: {exc.__cause__ or exc}")
                self._send_response(data["id"], None, err.to_response_error())
                return _Rejected()
            raise

    def handle_message(self, message):
        if isinstance(message, _Rejected):
            return
        method = getattr(message, "method", None)
        if method == "initialize":
            self._seen_initialize = True
        elif method is not None and not self._seen_initialize and method not in ("exit", "shutdown"):
            if getattr(message, "id", None) is not None:
                from pygls.exceptions import JsonRpcServerNotInitialized
                self._send_response(message.id, None, JsonRpcServerNotInitialized().to_response_error())
            return  # notifications before initialize are dropped (LSP 3.17)
        super().handle_message(message)

    def _handle_cancel_notification(self, msg_id):
        try:
            self._server.worker.cancel_request(msg_id)
        except Exception:
            log.exception("cancelling %s failed", msg_id)
        super()._handle_cancel_notification(msg_id)


class ShapeHintServer(LanguageServer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, protocol_cls=CancellingProtocol, notebook_document_sync=notebooks.SYNC, **kwargs)
        from ..analysis.workspace import Workspace
        self.analyses = Workspace()  # documents and their warm summaries (used on the analysis thread)
        self.worker = Worker(max_workers=int(os.environ.get("SHAPEHINT_WORKERS", "2")),
                             debounce_s=float(os.environ.get("SHAPEHINT_DEBOUNCE_MS", "250")) / 1000)
        self.worker.on_publish = self.publish
        self.worker.prepare = _prepare
        self.worker.on_busy = self._busy
        self.worker.current_version = self.document_version
        self.worker.warm_up(_warm_up)
        self.parsed: Parsed = parse_settings({})
        self.initialization_options: dict = {}
        self._projects: dict = {}  # pyproject path -> (mtime, Config)
        self._reported: set = set()
        self._progress = None  # TimerHandle before an analysis progress begins, then its token
        self._begun: set = set()
        self.run_diagnostics: dict = {}  # uri -> (version, [Diagnostic]) from the last device run
        self._run_generation = 0
        self._lines_cache: list = []  # [(text, encoding, Lines)], most recent first

    # ---- capabilities ----------------------------------------------------------
    def _cap(self, path: str):
        obj = self.client_capabilities
        for seg in path.split("."):
            obj = getattr(obj, seg, None) if obj is not None else None
        return obj

    @property
    def pull_diagnostics(self) -> bool:
        return self._cap("text_document.diagnostic") is not None

    @property
    def settings(self):
        return self.parsed.settings

    @property
    def encoding(self):
        return self.workspace.position_encoding or lsp.PositionEncodingKind.Utf16

    def lines(self, text: str) -> Lines:
        """The column converter for a snapshot's text; the last few are kept, since every hover
        would otherwise split the whole document again."""
        enc = self.encoding
        cache = self._lines_cache
        for t, e, lines in cache:
            if t is text and e == enc:
                return lines
        lines = Lines(text, enc)
        cache.insert(0, (text, enc, lines))
        del cache[4:]
        return lines

    def doc_lines(self, uri: str, snap: Snapshot):
        """Position conversion between the document `uri` and the snapshot's text: the snapshot's
        own, or a notebook cell's view of its notebook's joined text."""
        if snap.uri != uri:
            lines = notebooks.cell_lines(self, uri, snap)
            if lines is not None:
                return lines
        return self.lines(snap.text)

    # ---- documents -----------------------------------------------------------------
    def document_version(self, uri: str) -> Optional[int]:
        if notebooks.is_notebook(self, uri):
            return self.workspace.get_notebook_document(notebook_uri=uri).version
        doc = self.workspace.text_documents.get(uri)
        return None if doc is None else doc.version

    def schedule(self, uri: str, delay: Optional[float] = None) -> None:
        """(Re)analyse the current version of an open document (or notebook) in the background."""
        doc = self.workspace.text_documents.get(uri)
        notebook = notebooks.source(self, uri)  # (version, the code cells joined)
        if doc is None and notebook is None:
            return
        version, text = notebook if notebook is not None else (doc.version, doc.source)
        path = uris.to_fs_path(uri) or uri
        config = self.config_for(path)
        if not config.is_included(path):
            self.worker.forget(uri)
            snap = Snapshot(uri, version, text, _empty(path, text), (), config)
            self.worker.snapshots[uri] = snap
            self.publish(snap)
            return
        body = _body(uri, version, text, path, config, self.analyses)
        if notebook is not None:
            body = notebooks.with_cell_errors(self, uri, body)
        self.worker.schedule(uri, version, body, delay)

    def reanalyse_all(self) -> None:
        for uri in list(self.workspace.text_documents):
            self.schedule(uri, delay=0)

    async def snapshot(self, uri: str) -> Optional[Snapshot]:
        """The analysis of the document's current version (waiting for it when needed); for a
        notebook cell, its notebook's (positions through `doc_lines`)."""
        uri = notebooks.owner(self, uri) or uri
        version = self.document_version(uri)
        if version is not None and not self.worker.pending(uri) and (
                self.worker.snapshots.get(uri) is None or self.worker.snapshots[uri].version != version):
            self.schedule(uri, delay=0)
        return await self.worker.current(uri, version)

    # ---- configuration ---------------------------------------------------------------
    def config_for(self, path: str) -> cfgmod.Config:
        start = os.path.dirname(path) if os.path.isabs(path) else (self.workspace.root_path or os.getcwd())
        pyproject = cfgmod.find_pyproject(start)
        project = cfgmod.Config()
        if pyproject is not None:
            try:
                mtime = os.stat(pyproject).st_mtime_ns
            except OSError:
                mtime = None
            cached = self._projects.get(pyproject)
            if cached is None or cached[0] != mtime:
                cached = (mtime, cfgmod.load_config(os.path.dirname(pyproject)))
                self._projects[pyproject] = cached
                self.report_problems(cached[1].problems)
            project = cached[1]
        return effective_config(project, self.parsed)

    async def refresh_settings(self, pushed=None) -> None:
        """Fetch the `shapehint` section (or use what was pushed), validate, re-analyse."""
        raw = None
        if self._cap("workspace.configuration"):
            try:
                res = await self.workspace_configuration_async(lsp.ConfigurationParams(
                    items=[lsp.ConfigurationItem(section=SECTION)]))
                raw = res[0] if res else None
            except Exception:
                log.exception("workspace/configuration failed")
        if raw is None:
            opts = self.initialization_options
            raw = pushed if pushed is not None else opts.get("settings", opts)
        if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
            raw = raw[SECTION]
        self.apply_settings(raw or {})

    async def watch_project_files(self) -> None:
        """Ask the client to tell us when a pyproject.toml changes (its [tool.shapehint])."""
        if not self._cap("workspace.did_change_watched_files.dynamic_registration"):
            return
        opts = lsp.DidChangeWatchedFilesRegistrationOptions(
            watchers=[lsp.FileSystemWatcher(glob_pattern="**/pyproject.toml")])
        try:
            await self.client_register_capability_async(lsp.RegistrationParams(registrations=[
                lsp.Registration(id="shapehint-pyproject", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                 register_options=opts)]))
        except Exception:
            log.debug("file watcher registration failed", exc_info=True)

    def apply_settings(self, raw) -> None:
        old, self.parsed = self.parsed, parse_settings(raw)
        if self.parsed.problems != old.problems:  # VS Code re-sends on every unrelated change
            self.report_problems(self.parsed.problems, always=True)
        if old.settings == self.parsed.settings and old.explicit == self.parsed.explicit:
            return
        self.reanalyse_all()
        if self._cap("workspace.inlay_hint.refresh_support"):
            self.workspace_inlay_hint_refresh(None)

    def report_problems(self, problems, always: bool = False) -> None:
        """SH003: invalid settings or [tool.shapehint] entries, shown once each."""
        for p in problems:
            if p in self._reported and not always:
                continue
            self._reported.add(p)
            msg = f"ShapeHint SH003 (invalid configuration): {p}"
            log.warning(msg)
            self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=msg))

    # ---- publishing ---------------------------------------------------------------------
    def set_run_diagnostics(self, uri: str, version, diagnostics: list) -> None:
        """Keep a device run's diagnostics beside the analysis's until the document changes."""
        self._run_generation += 1
        self.run_diagnostics[uri] = (version, list(diagnostics), self._run_generation)
        snap = self.worker.snapshots.get(uri)
        if snap is not None and snap.version == version:
            self.publish(snap)

    def all_diagnostics(self, snap: Snapshot) -> list:
        run = self.run_diagnostics.get(snap.uri)
        extra = run[1] if run is not None and run[0] == snap.version else []
        return list(snap.diagnostics) + extra

    def result_id(self, snap: Snapshot) -> str:
        run = self.run_diagnostics.get(snap.uri)
        gen = run[2] if run is not None and run[0] == snap.version else 0
        return f"{snap.uri}@{snap.version}" + (f"#{gen}" if gen else "")

    def diagnostic_pairs(self, snap: Snapshot) -> list:
        """(analysis Diagnostic, LSP Diagnostic) for everything published for the snapshot."""
        from ..analysis.codes import docs_url
        from .convert import diagnostic
        lines = self.lines(snap.text)
        out = []
        for d in self.all_diagnostics(snap):
            try:
                out.append((d, diagnostic(d, lines, snap.uri, docs_url)))
            except Exception:  # one malformed diagnostic must not hide the others
                log.exception("cannot convert diagnostic %r", d)
        return out

    def lsp_diagnostics(self, snap: Snapshot) -> list:
        return [x for _, x in self.diagnostic_pairs(snap)]

    def pairs_for(self, uri: str, snap: Snapshot) -> list:
        """`diagnostic_pairs` as the document `uri` sees them (a notebook cell: its own)."""
        return notebooks.diagnostic_pairs(self, uri, snap) if snap.uri != uri else self.diagnostic_pairs(snap)

    def publish(self, snap: Snapshot) -> None:
        if self.pull_diagnostics:
            if self._cap("workspace.diagnostics.refresh_support"):
                self.workspace_diagnostic_refresh(None)
            return
        if notebooks.is_notebook(self, snap.uri):  # per cell
            notebooks.publish(self, snap)
            return
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=snap.uri, version=snap.version, diagnostics=self.lsp_diagnostics(snap)))

    def clear(self, uri: str) -> None:
        self.worker.close(uri)
        self.analyses.close(uris.to_fs_path(uri) or uri)
        self.run_diagnostics.pop(uri, None)
        if not self.pull_diagnostics:
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # ---- status and progress ------------------------------------------------------------
    def _busy(self, busy: bool) -> None:
        """Status notification; a work-done progress when analysing lasts over half a second."""
        state = "analysing" if busy else "idle"
        try:
            self.protocol.notify("shapehint/status", {"state": state})
        except Exception:
            log.debug("status notification failed", exc_info=True)
        if not self._cap("window.work_done_progress"):
            return
        loop = asyncio.get_running_loop()
        if busy and self._progress is None:
            self._progress = loop.call_later(0.5, lambda: loop.create_task(self._begin_progress()))
        elif not busy and self._progress is not None:
            pending, self._progress = self._progress, None
            if isinstance(pending, asyncio.TimerHandle):
                pending.cancel()
            elif pending in self._begun:
                self._begun.discard(pending)
                self.work_done_progress.end(pending, lsp.WorkDoneProgressEnd(message="done"))
                self.work_done_progress.tokens.pop(pending, None)

    async def _begin_progress(self) -> None:
        token = f"shapehint/analysis/{id(self)}/{asyncio.get_running_loop().time()}"
        self._progress = token
        try:
            await self.work_done_progress.create_async(token)
            if self._progress == token:
                self.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(title="ShapeHint: analysing"))
                self._begun.add(token)
                return
        except Exception:
            log.debug("work done progress failed", exc_info=True)
        if self._progress == token:
            self._progress = None

    async def with_progress(self, title: str, job: Job, coro):
        """Await `coro` under a server-initiated work-done progress (when the client has it)."""
        token = None
        if self._cap("window.work_done_progress"):
            token = f"shapehint/{job.label}/{id(job)}"
            try:
                await self.work_done_progress.create_async(token)
                self.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(
                    title=title, cancellable=True))
                fut = self.work_done_progress.tokens.get(token)
                if fut is not None:  # window/workDoneProgress/cancel from the client
                    fut.add_done_callback(lambda f: job.cancel() if f.cancelled() else None)
            except Exception:
                log.exception("work done progress failed")
                token = None
        try:
            return await coro
        finally:
            if token is not None:
                self.work_done_progress.end(token, lsp.WorkDoneProgressEnd(
                    message="cancelled" if job.is_set() else "done"))
                self.work_done_progress.tokens.pop(token, None)


def _warm_up() -> None:
    """Import the analysis (and its operator registry, parso's grammar) once, on one thread;
    then take everything start-up made out of the garbage collector's walks."""
    from ..analysis.api import warm_up
    from ..frontend.parse import IncrementalParser
    from ..gc_policy import settle
    warm_up()
    IncrementalParser()
    settle()


def _prepare(snap: Snapshot) -> None:
    """After publishing (analysis thread): the records and line index hover and inlay hints read
    are built now, then the session releases its interpreter (replayed if a question needs it)."""
    snap.result.line_index()
    if snap.session is not None:
        snap.session.release()


def _empty(path: str, text: str):
    from ..analysis.result import AnalysisResult
    return AnalysisResult(path=path, text=text)


def _body(uri: str, version, text: str, path: str, config, analyses=None):
    """The worker-thread part of analysing one document version."""
    def body(job: Job) -> Snapshot:
        from ..analysis.result import AnalysisResult, Diagnostic
        from ..project.deps import uses_torch
        session = None
        if len(text.encode("utf-8")) > config.max_file_size_kb * 1024:
            note = Diagnostic(1, 0, 1, 0, "information", "SH002",
                              f"file larger than {config.max_file_size_kb} KB: not analysed")
            result = AnalysisResult(path=path, text=text, diagnostics=[note])
        elif not uses_torch(path, text):  # not PyTorch code: no shape analysis (project/deps.py)
            result = AnalysisResult(path=path, text=text)
        else:
            if analyses is not None:  # warm per-function summaries: only what the edit touched
                analyses.configure(config)
                analyses.update(path, text, version, cancel=job)
                session = analyses.session(path)
            else:
                from ..analysis.api import analyze_session
                session = analyze_session(text, path, config=config, cancel=job)
            result = session.result
            errors = (getattr(result, "stats", None) or {}).get("internal_errors")
            if errors:
                log.warning("internal errors analysing %s: %s", path, errors[:3])
            log.debug("analysed %s v%s: %d diagnostics", path, version, len(result.diagnostics))
        job.check()
        comments = getattr(result, "comments", None)
        supp = cfgmod.comment_suppressions(comments) if comments is not None else text
        diags = cfgmod.apply_config(result.diagnostics, supp, config)
        return Snapshot(uri, version, text, result, tuple(diags), config, session)
    return body
