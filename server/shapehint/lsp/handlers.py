"""`shapehint lsp`: the LSP methods the server answers, each a thin handler.

Handlers convert between LSP and the features (plain functions of an analysis snapshot) and
nothing else; state lives in language_server.py, background work in worker.py. Every feature call is
wrapped so that one failure is logged and answers "nothing" instead of failing the request.
Tests: tests/lsp/ (pytest-lsp through stdio), tests/e2e/test_neovim.py.
"""
from __future__ import annotations

import logging
import sys
from functools import wraps

from lsprotocol import types as lsp

from . import commands, debug, notebooks, questions, runcmd  # noqa: F401  (they register commands/providers)
from .convert import code_action as to_code_action
from .features import actions, hover as hover_feature, inlay, signatures  # (signatures registers a provider)
from .language_server import ShapeHintServer
from .worker import Job

log = logging.getLogger(__name__)

server = ShapeHintServer("shapehint", "0.1.0")
notebooks.register(server)


def guarded(default=None):
    """Log a failing handler and answer `default` rather than an error."""
    def wrap(fn):
        @wraps(fn)
        async def inner(*args, **kwargs):
            try:
                return await fn(*args, **kwargs)
            except Exception:
                log.exception("%s failed", fn.__name__)
                return default
        return inner
    return wrap


# ---- lifecycle ----------------------------------------------------------------------

@server.feature(lsp.INITIALIZE)
def initialize(ls: ShapeHintServer, params: lsp.InitializeParams):
    opts = params.initialization_options
    ls.initialization_options = opts if isinstance(opts, dict) else {}


@server.feature(lsp.INITIALIZED)
async def initialized(ls: ShapeHintServer, params: lsp.InitializedParams):
    await ls.refresh_settings()
    await ls.watch_project_files()


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: ShapeHintServer, params: lsp.DidChangeWatchedFilesParams):
    if any(c.uri.endswith("pyproject.toml") for c in params.changes):
        ls.reanalyse_all()


@server.feature(lsp.SHUTDOWN)
def shutdown(ls: ShapeHintServer, params):
    ls.worker.shutdown()


@server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: ShapeHintServer, params: lsp.DidChangeConfigurationParams):
    await ls.refresh_settings(pushed=params.settings)


# ---- documents ----------------------------------------------------------------------

@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: ShapeHintServer, params: lsp.DidOpenTextDocumentParams):
    ls.schedule(params.text_document.uri, delay=0)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: ShapeHintServer, params: lsp.DidChangeTextDocumentParams):
    ls.schedule(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: ShapeHintServer, params: lsp.DidSaveTextDocumentParams):
    if params.text_document.uri.endswith("pyproject.toml"):
        ls.reanalyse_all()


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: ShapeHintServer, params: lsp.DidCloseTextDocumentParams):
    ls.clear(params.text_document.uri)


# ---- features -------------------------------------------------------------------------

@server.feature(lsp.TEXT_DOCUMENT_HOVER)
@guarded()
async def hover(ls: ShapeHintServer, params: lsp.HoverParams):
    snap = await ls.snapshot(params.text_document.uri)
    if snap is None:
        return None
    lines = ls.doc_lines(params.text_document.uri, snap)
    line, col = lines.from_lsp(params.position)
    info = hover_feature.hover(snap.result, line, col, ls.settings)
    if info is None:  # on a `def`/class name: the inferred input signature (may ask the solver)
        job = Job("hover", uri=params.text_document.uri, version=snap.version, request_id=ls.protocol.msg_id)
        found = await ls.worker.run(job, lambda job: signatures.signature_hover(snap.session, line, col),
                                    executor=ls.worker.analysis_executor)
        return None if found is None else lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=found[0]))
    s = info.span
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=info.markdown),
                     range=lines.range(s.line, s.col, s.end_line, s.end_col))


@server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintOptions(resolve_provider=True))
@guarded(default=[])
async def inlay_hint(ls: ShapeHintServer, params: lsp.InlayHintParams):
    uri = params.text_document.uri
    snap = await ls.snapshot(uri)
    if snap is None:
        return []
    lines = ls.doc_lines(uri, snap)
    start = lines.from_lsp(params.range.start)[0]
    end = lines.from_lsp(params.range.end)[0]
    out = []
    for h in inlay.inlay_hints(snap.result, start, end, ls.settings.inlay_hints):
        out.append(lsp.InlayHint(position=lines.to_lsp(h.line, h.col), label=h.label,
                                 kind=lsp.InlayHintKind.Type, padding_left=h.label.startswith(" "),
                                 data={"uri": snap.uri, "version": snap.version, **h.key}))
    return out


@server.feature(lsp.INLAY_HINT_RESOLVE)
@guarded()
async def inlay_hint_resolve(ls: ShapeHintServer, hint: lsp.InlayHint):
    data = hint.data if isinstance(hint.data, dict) else {}
    snap = ls.worker.snapshots.get(data.get("uri", ""))
    if snap is not None and snap.version == data.get("version"):
        tip = inlay.resolve_tooltip(snap.result, data)
        if tip:
            hint.tooltip = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=tip)
    return hint


@server.feature(lsp.TEXT_DOCUMENT_DIAGNOSTIC, lsp.DiagnosticOptions(
    identifier="shapehint", inter_file_dependencies=False, workspace_diagnostics=True))
@guarded(default=lsp.RelatedFullDocumentDiagnosticReport(items=[]))
async def diagnostic(ls: ShapeHintServer, params: lsp.DocumentDiagnosticParams):
    uri = params.text_document.uri
    snap = await ls.snapshot(uri)
    if snap is None:
        return lsp.RelatedFullDocumentDiagnosticReport(items=[])
    result_id = ls.result_id(snap)
    if params.previous_result_id == result_id:
        return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    items = [x for _, x in ls.pairs_for(uri, snap)]
    return lsp.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)


@server.feature(lsp.WORKSPACE_DIAGNOSTIC)
@guarded(default=lsp.WorkspaceDiagnosticReport(items=[]))
async def workspace_diagnostic(ls: ShapeHintServer, params: lsp.WorkspaceDiagnosticParams):
    import asyncio
    from pygls import uris
    from . import workspace_diags
    open_paths = {uris.to_fs_path(u) for u in ls.workspace.text_documents}
    found = await asyncio.to_thread(workspace_diags.cached_reports, workspace_diags.roots_of(ls),
                                    open_paths, ls.config_for)
    return workspace_diags.report(ls, found)


@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
    code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.RefactorRewrite]))
@guarded(default=[])
async def code_action(ls: ShapeHintServer, params: lsp.CodeActionParams):
    uri = params.text_document.uri
    snap = await ls.snapshot(uri)
    if snap is None:
        return []
    lines = ls.doc_lines(uri, snap)
    (l0, c0), (l1, c1) = lines.from_lsp(params.range.start), lines.from_lsp(params.range.end)
    diags = [d for d in ls.all_diagnostics(snap) if d.line <= l1 and d.end_line >= l0]
    ctx = actions.ActionContext(snap.result, l0, c0, l1, c1, diags, ls.settings, uri, snap.session)
    only = [str(k.value if hasattr(k, "value") else k) for k in (params.context.only or [])]
    lsp_diags = {id(d): x for d, x in ls.pairs_for(uri, snap)}
    versioned = bool(ls._cap("workspace.workspace_edit.document_changes"))
    # providers may ask the solver about the snapshot (holes, branches, migration): off the loop,
    # on the analysis thread that owns the snapshot's solver state
    job = Job("codeAction", uri=uri, version=snap.version, request_id=ls.protocol.msg_id)
    found = await ls.worker.run(job, lambda job: actions.code_actions(ctx, only or None),
                                executor=ls.worker.analysis_executor)
    if snap.uri != uri:  # a notebook cell: each edit goes to the cell it touches
        out = [notebooks.code_action(a, ls, snap, versioned, [lsp_diags[id(d)] for d in a.diagnostics
                                                              if id(d) in lsp_diags]) for a in found]
        return [a for a in out if a is not None]
    return [to_code_action(
        a, lines, uri, snap.version, [lsp_diags[id(d)] for d in a.diagnostics if id(d) in lsp_diags],
        versioned) for a in found]


@server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=False))
@guarded(default=[])
async def code_lens(ls: ShapeHintServer, params: lsp.CodeLensParams):
    from .features.lenses import run_lenses
    uri = params.text_document.uri
    snap = await ls.snapshot(uri)
    if snap is None:
        return []
    lines = ls.doc_lines(uri, snap)

    def elsewhere(lens) -> bool:  # a notebook cell shows only the lenses of its own lines
        return snap.uri != uri and not lines.has(lens.line)
    out = []
    for lens in run_lenses(snap.result):
        if elsewhere(lens):
            continue
        start = lines.to_lsp(lens.line, lens.col)
        out.append(lsp.CodeLens(range=lsp.Range(start=start, end=start), command=lsp.Command(
            title=lens.title, command="shapehint.deviceRun", arguments=[{"uri": uri, "entry": lens.entry}])))
    job = Job("codeLens", uri=uri, version=snap.version, request_id=ls.protocol.msg_id)
    for lens in await ls.worker.run(job, lambda job: signatures.signature_lenses(snap.session),
                                    executor=ls.worker.analysis_executor):
        if elsewhere(lens):
            continue
        start = lines.to_lsp(lens.line, lens.col)
        out.append(lsp.CodeLens(range=lsp.Range(start=start, end=start), command=lsp.Command(
            title=lens.title, command="shapehint.deviceRun",
            arguments=[{"uri": uri, "entry": lens.entry, "inputs": lens.inputs}])))
    return out


# ---- commands -----------------------------------------------------------------------------

def _register_command(name: str):
    @server.command(name)
    async def run_command(ls: ShapeHintServer, *args):
        try:
            return await commands.execute(ls, name, list(args))
        except commands.NotAvailable as exc:
            from pygls.exceptions import JsonRpcInvalidRequest
            raise JsonRpcInvalidRequest(str(exc)) from None
    return run_command


for _name in commands.server_commands() + debug.commands():
    _register_command(_name)


def main(argv=None) -> int:
    """Entry point of `shapehint lsp` (stdio). Logs go to stderr: stdout is the protocol."""
    import os
    level = os.environ.get("SHAPEHINT_LOG", "WARNING").upper()
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, level, logging.WARNING),
                        format="shapehint-lsp %(levelname)s %(name)s: %(message)s")
    from .worker import SWITCH_INTERVAL_S
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    server.start_io()
    return 0


if __name__ == "__main__":
    sys.exit(main())
