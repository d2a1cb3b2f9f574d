"""Notebook documents (LSP 3.17 `notebookDocument/*` synchronisation).

A notebook is analysed as ONE document under the notebook's URI: the text is its Python code
cells joined (`shapehint.notebook`: IPython syntax masked in place, each broken cell repaired
alone), so the worker, the warm per-function summaries (`Workspace.update`: editing one cell
re-analyses only the functions whose text changed) and every feature work unchanged. Requests
arrive with a *cell's* URI; `CellLines` shifts positions between the cell and the joined text,
and what the features return is split back per cell: diagnostics are published per cell URI
(their related locations pointing at the cell they name), code-action edits land in the cell
they touch, lenses and hints are those of the asked cell.
Tests: tests/lsp/test_notebooks.py.
"""
from __future__ import annotations

import dataclasses
import logging
from typing import Optional
from urllib.parse import unquote

import attrs
from lsprotocol import types as lsp

from .. import notebook as nbm

log = logging.getLogger(__name__)

# Python cells of any notebook type ("*": vscode-languageclient matches every type with it; a
# filter without `notebook` is valid LSP too, but lsprotocol-based clients cannot read it)
SYNC = lsp.NotebookDocumentSyncOptions(notebook_selector=[
    lsp.NotebookDocumentFilterWithCells(notebook="*", cells=[lsp.NotebookCellLanguage(language="python")])])


@dataclasses.dataclass
class View:
    """One version of an open notebook: its joined text and where each cell lies in it."""

    uri: str
    version: int
    joined: nbm.Joined
    cell_uris: list  # every cell's document URI, in notebook order (index = cell number)
    notebook: nbm.Notebook
    code: set  # the cells analysed as Python

    def cell_of(self, uri: str) -> Optional[int]:
        try:
            return self.cell_uris.index(unquote(uri))
        except ValueError:
            return None


class CellLines:
    """`convert.Lines` of the joined text as seen from one cell (LSP positions are the cell's)."""

    def __init__(self, lines, start: int, count: int):
        self.inner, self.start, self.count = lines, start, count

    def has(self, line: int) -> bool:
        """Is the joined text's (1-based) `line` in this cell?"""
        return self.start < line <= self.start + self.count

    def to_lsp(self, line: int, col: int) -> lsp.Position:
        p = self.inner.to_lsp(line, col)
        return lsp.Position(line=max(p.line - self.start, 0), character=p.character)

    def from_lsp(self, pos: lsp.Position) -> tuple:
        return self.inner.from_lsp(lsp.Position(line=pos.line + self.start, character=pos.character))

    def range(self, line: int, col: int, end_line: int, end_col: int) -> lsp.Range:
        if not self.has(end_line):  # a range running into the next cell stops at this one's end
            end_line = self.start + self.count
            end_col = len(self.inner._line(end_line - 1))
        return lsp.Range(start=self.to_lsp(line, col), end=self.to_lsp(end_line, end_col))


_VIEWS: dict = {}  # notebook uri -> (key, View)


def is_notebook(ls, uri: str) -> bool:
    return ls.workspace.get_notebook_document(notebook_uri=uri) is not None


def owner(ls, uri: str) -> Optional[str]:
    """The URI of the notebook holding the cell `uri` (None for plain documents)."""
    nb = ls.workspace.get_notebook_document(cell_uri=uri)
    return nb.uri if nb is not None else None


def view(ls, notebook_uri: str) -> Optional[View]:
    """The notebook's current joined text (rebuilt only when a cell or the structure changed)."""
    nb = ls.workspace.get_notebook_document(notebook_uri=notebook_uri)
    if nb is None:
        return None
    docs = ls.workspace.text_documents
    cells, code = [], set()
    for i, c in enumerate(nb.cells):
        doc = docs.get(unquote(c.document))
        text = doc.source if doc is not None else ""
        if c.kind == lsp.NotebookCellKind.Code and (doc is None or doc.language_id in (None, "", "python")):
            code.add(i)
        cells.append((c.document, doc.version if doc is not None else None, text))
    key = (nb.version, tuple((u, v) for u, v, _ in cells))
    cached = _VIEWS.get(notebook_uri)
    if cached is not None and cached[0] == key:
        return cached[1]
    notebook = nbm.Notebook([nbm.Cell(i, "code" if i in code else "markdown", t) for i, (_, _, t) in enumerate(cells)])
    out = View(notebook_uri, nb.version, nbm.join(notebook, code_cells=code), [unquote(u) for u, _, _ in cells],
               notebook, code)
    _VIEWS[notebook_uri] = (key, out)
    return out


def forget(notebook_uri: str) -> None:
    _VIEWS.pop(notebook_uri, None)


def source(ls, uri: str) -> Optional[tuple]:
    """(version, text) of an open notebook, for the analysis; None for other URIs."""
    v = view(ls, uri) if is_notebook(ls, uri) else None
    return None if v is None else (v.version, v.joined.text)


def run_source(ls, cell_uri: str) -> Optional[tuple]:
    """(notebook uri, version, joined cells up to and including `cell_uri`) for a device run from
    a cell's lens; the joined text is a prefix of the analysed one, so its lines are the same."""
    nb_uri = owner(ls, cell_uri)
    v = view(ls, nb_uri) if nb_uri is not None else None
    cell = v.cell_of(cell_uri) if v is not None else None
    if cell is None:
        return None
    return nb_uri, v.version, nbm.join(v.notebook, upto=cell, code_cells=v.code)


def with_cell_errors(ls, uri: str, body):
    """Wrap an analysis body: add the cells' own syntax errors (SH001) to the snapshot's
    diagnostics (the joined text is valid, so the analysis sees none of them)."""
    v = view(ls, uri)
    extra = nbm.cell_diagnostics(v.joined) if v is not None else []
    if not extra:
        return body

    def wrapped(job):
        snap = body(job)
        diags = sorted(list(snap.diagnostics) + extra, key=lambda d: (d.line, d.col))
        return dataclasses.replace(snap, diagnostics=tuple(diags))
    return wrapped


def cell_lines(ls, uri: str, snap) -> Optional[CellLines]:
    """Position conversion for the cell `uri` of the notebook analysed in `snap` (None when
    `uri` is not in it). A cell that is not analysed (not Python) sees none of the text."""
    v = view(ls, snap.uri)
    cell = v.cell_of(uri) if v is not None else None
    if cell is None:
        return None
    lines = ls.lines(snap.text)
    if cell not in v.joined.starts:
        return CellLines(lines, len(lines.lines) + 1, 0)
    return CellLines(lines, v.joined.starts[cell], v.joined.counts[cell])


def _relocate(v: View, loc: lsp.Location) -> lsp.Location:
    """A location in the joined text (the notebook's URI) -> the same place in its cell."""
    if unquote(loc.uri) != unquote(v.uri):
        return loc
    at = v.joined.locate(loc.range.start.line + 1)
    if at is None:
        return loc
    cell, line = at
    delta = loc.range.start.line - (line - 1)
    return lsp.Location(uri=v.cell_uris[cell], range=lsp.Range(
        start=lsp.Position(line=line - 1, character=loc.range.start.character),
        end=lsp.Position(line=max(loc.range.end.line - delta, line - 1), character=loc.range.end.character)))


def diagnostic_pairs(ls, uri: str, snap, pairs=None) -> list:
    """(analysis Diagnostic, LSP Diagnostic in the cell's positions) for the cell `uri`, from
    the notebook's `pairs` (`ls.diagnostic_pairs(snap)`, computed when not given)."""
    lines = cell_lines(ls, uri, snap)
    v = view(ls, snap.uri)
    if lines is None:
        return []
    out = []
    for d, x in (pairs if pairs is not None else ls.diagnostic_pairs(snap)):
        if not lines.has(d.line):
            continue
        related = [lsp.DiagnosticRelatedInformation(location=_relocate(v, r.location), message=r.message)
                   for r in (x.related_information or [])]
        out.append((d, attrs.evolve(x, range=lines.range(d.line, d.col, d.end_line, d.end_col),
                                    related_information=related or None)))
    return out


def publish(ls, snap) -> None:
    """Push one notebook snapshot's diagnostics to each of its code cells (empty lists clear)."""
    v = view(ls, snap.uri)
    if v is None:
        return
    docs = ls.workspace.text_documents
    pairs = ls.diagnostic_pairs(snap)
    for cell in v.joined.starts:
        uri = v.cell_uris[cell]
        doc = docs.get(uri)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, version=doc.version if doc is not None else None,
            diagnostics=[x for _, x in diagnostic_pairs(ls, uri, snap, pairs)]))


def clear_cells(ls, cell_uris) -> None:
    if ls.pull_diagnostics:
        return
    for uri in cell_uris:
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def workspace_edit(ls, snap, edits: list, versioned: bool = True) -> Optional[lsp.WorkspaceEdit]:
    """Edits over the notebook's joined text -> a WorkspaceEdit with one change per cell they
    touch, in that cell's positions (None when an edit falls outside every code cell)."""
    from .convert import text_edit
    v = view(ls, snap.uri)
    groups: dict = {}
    for e in edits:
        at = v.joined.locate(e.line) if v is not None else None
        if at is None:
            return None
        groups.setdefault(at[0], []).append(e)
    changes = []
    for cell, group in sorted(groups.items()):
        uri = v.cell_uris[cell]
        doc = ls.workspace.text_documents.get(uri)
        lines = cell_lines(ls, uri, snap)
        changes.append((uri, doc.version if doc is not None else None, [text_edit(e, lines) for e in group]))
    if not versioned:
        return lsp.WorkspaceEdit(changes={u: es for u, _, es in changes})
    return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
        text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=u, version=ver), edits=es)
        for u, ver, es in changes])


def code_action(a, ls, snap, versioned: bool, diagnostics: list):
    """A features.actions.Action over the joined text -> an LSP CodeAction whose edits land in
    the cells they touch (None when an edit falls outside every code cell)."""
    from .convert import code_action as convert
    out = convert(dataclasses.replace(a, edits=[]), ls.lines(snap.text), snap.uri, None, diagnostics, versioned)
    if not a.edits:
        return out
    edit = workspace_edit(ls, snap, a.edits, versioned)
    return None if edit is None else attrs.evolve(out, edit=edit)


def module_line(ls, uri: str, snap, line: int) -> int:
    """A 1-based line of the document `uri` (a cell) -> the line of the snapshot's text."""
    lines = cell_lines(ls, uri, snap) if snap.uri != uri else None
    return line + lines.start if lines is not None else line


def register(server) -> None:
    """The notebookDocument/* handlers (pygls keeps the notebook and its cells' texts)."""
    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
    def did_open(ls, params: lsp.DidOpenNotebookDocumentParams):
        ls.schedule(params.notebook_document.uri, delay=0)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: lsp.DidChangeNotebookDocumentParams):
        structure = params.change.cells.structure if params.change.cells is not None else None
        if structure is not None and structure.did_close:
            clear_cells(ls, [c.uri for c in structure.did_close])
        ls.schedule(params.notebook_document.uri)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_SAVE)
    def did_save(ls, params: lsp.DidSaveNotebookDocumentParams):
        pass  # the text was already analysed as it changed

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: lsp.DidCloseNotebookDocumentParams):
        uri = params.notebook_document.uri
        ls.clear(uri)
        forget(uri)
        clear_cells(ls, [c.uri for c in params.cell_text_documents])
