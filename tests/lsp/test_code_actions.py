"""Code actions through the real stdio server: both refactors produce correct edits (the
result parses, only the intended lines change, re-analysis agrees), and quick fixes."""
from __future__ import annotations

import ast
import re

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import EXAMPLES, apply_edits, change_doc, initialize_params, open_doc, push_capabilities, \
    server_config, wait_diagnostics

pytestmark = pytest.mark.asyncio(loop_scope="module")

DOWN = EXAMPLES / "down.py"
CNN = EXAMPLES / "cnn.py"
B = r"(B|x\.shape\[0\])"


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(initialize_params(push_capabilities()))
    yield
    await lsp_client.shutdown_session()


async def _actions(client, uri, line, diagnostics=(), only=None):
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=line - 1, character=0),
                          end=types.Position(line=line - 1, character=0)),
        context=types.CodeActionContext(diagnostics=list(diagnostics), only=only)))


def _edits(action, uri):
    change = action.edit.document_changes[0]
    assert change.text_document.uri == uri
    return change.edits


async def test_insert_inferred_shape_as_comment(client: LanguageClient):
    uri = open_doc(client, DOWN)
    text = DOWN.read_text()
    acts = {a.title: a for a in await _actions(client, uri, 14)}
    act = acts["Insert inferred shape as comment"]
    assert act.kind == types.CodeActionKind.RefactorRewrite
    new = apply_edits(text, _edits(act, uri))
    ast.parse(new)
    old_lines, new_lines = text.split("\n"), new.split("\n")
    assert [i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b] == [13]
    assert re.fullmatch(rf"        y = self\.conv\(x\)  # \[{B}, 64, .*\]", new_lines[13])
    # the comment now matches: no SH204, and no inlay hint is offered for that line any more
    change_doc(client, uri, new, 2)
    diags = await wait_diagnostics(client, uri, version=2)
    assert not [d for d in diags if d.code == "SH204"]
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=30, character=0))))
    assert 13 not in [h.position.line for h in hints]
    change_doc(client, uri, text, 3)


async def test_annotate_with_inferred_shape(client: LanguageClient):
    uri = DOWN.as_uri()
    text = DOWN.read_text()
    await wait_diagnostics(client, uri, version=3)
    acts = {a.title: a for a in await _actions(client, uri, 14, only=[types.CodeActionKind.RefactorRewrite])}
    assert "Ignore" not in " ".join(acts), "only refactors were asked for"
    act = acts["Annotate with inferred shape"]
    new = apply_edits(text, _edits(act, uri))
    ast.parse(new)
    new_lines = new.split("\n")
    assert new_lines[13] == text.split("\n")[13]
    assert new_lines[14].startswith("        assert y.shape == (")
    assert new_lines[15:] == text.split("\n")[14:]
    # the assertion written is consistent with the inference: it never fails (no SH108)
    change_doc(client, uri, new, 4)
    diags = await wait_diagnostics(client, uri, version=4)
    assert not [d for d in diags if d.severity == types.DiagnosticSeverity.Error], diags
    change_doc(client, uri, text, 5)


async def test_quick_fix_ignores_the_error_on_its_line(client: LanguageClient):
    uri = open_doc(client, CNN)
    text = CNN.read_text()
    diags = [d for d in await wait_diagnostics(client, uri, version=1) if d.code == "SH101"]
    acts = await _actions(client, uri, 19, diagnostics=diags, only=[types.CodeActionKind.QuickFix])
    fix = [a for a in acts if a.title == "Ignore SH101 on this line"][0]
    assert fix.kind == types.CodeActionKind.QuickFix and fix.diagnostics[0].code == "SH101"
    new = apply_edits(text, _edits(fix, uri))
    assert new.split("\n")[18] == "        out = self.fc2(h)  # shapehint: ignore[SH101]"
    change_doc(client, uri, new, 2)
    assert not [d for d in await wait_diagnostics(client, uri, version=2) if d.code == "SH101"]
