"""The boundary between the analysis's positions and the protocol's.

Inside ShapeHint a position is (line 1-based, column 0-based in Unicode code points). LSP
positions are 0-based lines and, by default, UTF-16 code units (or code points when the client
negotiated `utf-32`). Conversion happens here and nowhere else; features never see LSP types.
Tests: tests/lsp/test_convert.py.
"""
from __future__ import annotations

from lsprotocol import types as lsp


class Lines:
    """Column conversion for one document text."""

    def __init__(self, text: str, encoding: str = lsp.PositionEncodingKind.Utf16):
        self.lines = text.split("\n")
        self.utf16 = encoding == lsp.PositionEncodingKind.Utf16
        self.utf8 = encoding == lsp.PositionEncodingKind.Utf8

    def _line(self, i: int) -> str:
        return self.lines[i] if 0 <= i < len(self.lines) else ""

    def to_lsp(self, line: int, col: int) -> lsp.Position:
        """(1-based line, code-point col) -> LSP Position."""
        text = self._line(line - 1)[:col]
        if self.utf16:
            units = len(text.encode("utf-16-le")) // 2
        elif self.utf8:
            units = len(text.encode("utf-8"))
        else:
            units = len(text)
        return lsp.Position(line=max(line - 1, 0), character=units + max(0, col - len(self._line(line - 1))))

    def from_lsp(self, pos: lsp.Position) -> tuple:
        """LSP Position -> (1-based line, code-point col), clamped to the line."""
        text = self._line(pos.line)
        if not (self.utf16 or self.utf8):
            return pos.line + 1, min(pos.character, len(text))
        units = 0
        for i, ch in enumerate(text):
            if units >= pos.character:
                return pos.line + 1, i
            units += (len(ch.encode("utf-16-le")) // 2) if self.utf16 else len(ch.encode("utf-8"))
        return pos.line + 1, len(text)

    def range(self, line: int, col: int, end_line: int, end_col: int) -> lsp.Range:
        return lsp.Range(start=self.to_lsp(line, col), end=self.to_lsp(end_line, end_col))


SEVERITY = {
    "error": lsp.DiagnosticSeverity.Error,
    "warning": lsp.DiagnosticSeverity.Warning,
    "information": lsp.DiagnosticSeverity.Information,
    "hint": lsp.DiagnosticSeverity.Hint,
}


def diagnostic(d, lines: Lines, uri: str, docs_url) -> lsp.Diagnostic:
    """An analysis Diagnostic -> LSP Diagnostic with related information and a docs link."""
    related = []
    for r in d.related:
        pos = lines.to_lsp(r.line, r.col)
        target = uri if not r.file else _file_uri(r.file)
        related.append(lsp.DiagnosticRelatedInformation(
            location=lsp.Location(uri=target, range=lsp.Range(start=pos, end=pos)), message=r.message))
    data = {"code": d.code}
    if d.data:
        data.update(d.data)
    return lsp.Diagnostic(
        range=lines.range(d.line, d.col, d.end_line, d.end_col),
        severity=SEVERITY.get(d.severity, lsp.DiagnosticSeverity.Error),
        code=d.code,
        code_description=lsp.CodeDescription(href=docs_url(d.code)),
        source="shapehint",
        message=d.message,
        related_information=related or None,
        data=data,
    )


def _file_uri(path: str) -> str:
    from pygls import uris
    return path if "://" in path else (uris.from_fs_path(path) or path)


def text_edit(e, lines: Lines) -> lsp.TextEdit:
    return lsp.TextEdit(range=lines.range(e.line, e.col, e.end_line, e.end_col), new_text=e.new_text)


def code_action(a, lines: Lines, uri: str, version, diagnostics: list,
                versioned: bool = True) -> lsp.CodeAction:
    """A features.actions.Action -> LSP CodeAction (a versioned workspace edit when the client
    supports `documentChanges`, else plain `changes`)."""
    edit = None
    if a.edits:
        edits = [text_edit(e, lines) for e in a.edits]
        if versioned:
            doc = lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
            edit = lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(text_document=doc, edits=edits)])
        else:
            edit = lsp.WorkspaceEdit(changes={uri: edits})
    command = None
    if a.command:
        command = lsp.Command(title=a.title, command=a.command[0], arguments=list(a.command[1]))
    return lsp.CodeAction(title=a.title, kind=a.kind, edit=edit, command=command,
                          diagnostics=diagnostics or None, is_preferred=a.preferred or None)
