"""The question actions (holes, branches, static migration) plugged into the code-action
registry and the server commands of shared/commands.json.

  quickfix          "Fill hole with N"                  a hole (`__`) with a unique value
  refactor.rewrite  "Eliminate branch (always true|false)"  a decided shape-dependent `if`
  refactor.rewrite  "Annotate function with its static shapes"  the function around the cursor
  commands          shapehint.fillHole {uri, line, col}, shapehint.eliminateBranch {uri, line},
                    shapehint.annotateFunction {uri, function, assume?}: the same edits, applied
                    with workspace/applyEdit.
The answers come from `shapehint.questions` on the snapshot's `AnalysisSession` and may query the
solver, so providers and commands run on the worker's analysis thread, never on the event loop.
Tests: tests/lsp/test_questions.py.
"""
from __future__ import annotations

import ast
import logging
from typing import Optional

from lsprotocol import types as lsp

from ..frontend.pyast import parse as parse_ast
from .commands import command
from .features.actions import QUICKFIX, REWRITE, Action, ActionContext, Edit, provider
from .worker import Job

log = logging.getLogger(__name__)


def _edits(question_edits) -> list:
    return [Edit(e.line, e.col, e.end_line, e.end_col, e.text) for e in question_edits or ()]


def _live(session) -> bool:
    """Whether there is an analysis to ask (not the interpreter itself: that may be replayed)."""
    return session is not None and session.live()


# ---- the answers ------------------------------------------------------------------------

def hole_edits(session, line: int, col: Optional[int] = None) -> list:
    """[(title, edits)] for unique-valued holes on `line` (at `col` when given)."""
    from ..questions.edits import fill_hole_edit
    from ..questions.holes import answer_holes
    out = []
    for h in answer_holes(session):
        if h["line"] == line and (col is None or h["col"] == col) and h["status"] == "unique":
            out.append((f"Fill hole with {h['value']}", _edits([fill_hole_edit(h["line"], h["col"], h["value"])])))
    return out


def branch_edits(session, line: int) -> list:
    from ..questions.branches import answer_branches
    from ..questions.edits import eliminate_branch_edits
    out = []
    text = session.result.text
    for b in answer_branches(session):
        if b["line"] != line or b["status"] not in ("always-true", "always-false"):
            continue
        node = _if_node(text, b["line"], b["col"])
        edits = node is not None and eliminate_branch_edits(text, node, b["status"] == "always-true")
        if edits:
            which = "true" if b["status"] == "always-true" else "false"
            out.append((f"Eliminate branch (always {which})", _edits(edits)))
    return out


def _if_node(text: str, line: int, col: int) -> Optional[ast.If]:
    try:
        tree = parse_ast(text)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and node.lineno == line and node.col_offset == col:
            return node
    return None


def function_at(result, line: int) -> Optional[str]:
    """The innermost function (not `__init__`) whose definition spans `line`."""
    best = None
    for name, span in (result.functions or {}).items():
        if span.line <= line <= span.end_line and not name.endswith("__init__"):
            if best is None or span.line >= result.functions[best].line:
                best = name
    return best


def migration_edits(session, qualname: str, assume=()) -> tuple:
    """(status, edits) of the static migration of `qualname`."""
    from ..questions.edits import annotate_edits
    from ..questions.migrate import migrate_function
    fn = session.function(qualname)
    if fn is None:
        return "unknown", []
    # (kept with the session: the editor asks for code actions at every cursor move, and a
    # migration may analyse the function again for each rank it tries)
    m = session.memo(f"migration {qualname} {list(assume)!r}", lambda: migrate_function(session, qualname, list(assume)))
    if m["status"] not in ("static", "partial"):
        return m["status"], []
    return m["status"], _edits(annotate_edits(session.result.text, fn.node, m, m["status"] == "static"))


# ---- code-action providers ------------------------------------------------------------

@provider
def fill_holes(ctx: ActionContext):
    if not _live(ctx.session):
        return
    for line in range(ctx.line, ctx.end_line + 1):
        for title, edits in hole_edits(ctx.session, line):
            diags = [d for d in ctx.diagnostics if d.code == "SH403" and d.line == line]
            yield Action(title, QUICKFIX, edits, preferred=True, diagnostics=diags)


@provider
def eliminate_branches(ctx: ActionContext):
    if not _live(ctx.session):
        return
    for line in range(ctx.line, ctx.end_line + 1):
        for title, edits in branch_edits(ctx.session, line):
            diags = [d for d in ctx.diagnostics if d.code == "SH402" and d.line == line]
            yield Action(title, QUICKFIX if diags else REWRITE, edits, diagnostics=diags)


@provider
def annotate_function(ctx: ActionContext):
    if not _live(ctx.session):
        return
    name = function_at(ctx.result, ctx.line)
    if name is None or ctx.result.functions[name].line != ctx.line:
        return  # offered on the `def` line, where the edit lands
    status, edits = migration_edits(ctx.session, name)
    if edits:
        yield Action(f"Annotate {name.split('.')[-1]} with its static shapes", REWRITE, edits)


# ---- commands --------------------------------------------------------------------------

async def _apply(server, uri: str, snap, edits: list, label: str) -> bool:
    from . import notebooks
    from .convert import text_edit
    if snap.uri != uri:  # a notebook cell: the edits go to the cells they touch
        edit = notebooks.workspace_edit(server, snap, edits)
        if edit is None:
            return False
    else:
        lines = server.lines(snap.text)
        doc = lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=snap.version)
        edit = lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
            text_document=doc, edits=[text_edit(e, lines) for e in edits])])
    res = await server.workspace_apply_edit_async(lsp.ApplyWorkspaceEditParams(edit=edit, label=label))
    return bool(getattr(res, "applied", False))


async def _question(server, args: dict, label: str, fn):
    uri = args.get("uri")
    if not isinstance(uri, str):
        raise ValueError(f"{label} needs {{uri, ...}}")
    snap = await server.snapshot(uri)
    if snap is None:
        return {"applied": False, "message": "the document is not open"}
    if snap.uri != uri and "line" in args:  # a notebook cell's line -> the notebook's
        from .notebooks import module_line
        args["line"] = module_line(server, uri, snap, int(args.get("line", 0)))  # (the answers read it)
    job = server.worker.track(Job(label, uri=uri, version=snap.version, request_id=server.protocol.msg_id))
    if not _live(snap.session):
        return {"applied": False, "status": "unknown", "message": "nothing to do (no analysis)"}
    title, edits, status = await server.worker.run(job, lambda job: fn(snap.session),
                                                   executor=server.worker.analysis_executor)
    if not edits:
        return {"applied": False, "status": status, "message": f"nothing to do ({status})"}
    applied = await _apply(server, uri, snap, edits, title)
    return {"applied": applied, "status": status, "message": title}


@command("shapehint.fillHole")
async def fill_hole_command(server, args: dict):
    def answer(session):
        found = hole_edits(session, int(args.get("line", 0)), args.get("col"))
        return (found[0][0], found[0][1], "unique") if found else ("", [], "no unique value")
    return await _question(server, args, "shapehint.fillHole", answer)


@command("shapehint.eliminateBranch")
async def eliminate_branch_command(server, args: dict):
    def answer(session):
        found = branch_edits(session, int(args.get("line", 0)))
        return (found[0][0], found[0][1], "decided") if found else ("", [], "not decided")
    return await _question(server, args, "shapehint.eliminateBranch", answer)


@command("shapehint.annotateFunction")
async def annotate_function_command(server, args: dict):
    def answer(session):
        name = args.get("function") or ""
        status, edits = migration_edits(session, name, args.get("assume") or ())
        return f"Annotate {name} with its static shapes", edits, status
    return await _question(server, args, "shapehint.annotateFunction", answer)
