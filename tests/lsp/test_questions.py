"""The question actions through the real stdio server: fill a hole, eliminate a decided branch,
annotate a function (code actions and the shapehint.* commands with workspace/applyEdit)."""
from __future__ import annotations

import ast

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import EXAMPLES, accept_applied_edits, apply_edits, initialize_params, open_doc, \
    push_capabilities, server_config

pytestmark = pytest.mark.asyncio(loop_scope="module")

QUESTIONS = EXAMPLES / "questions.py"


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: LanguageClient):
    accept_applied_edits(lsp_client)
    await lsp_client.initialize_session(initialize_params(push_capabilities()))
    yield
    await lsp_client.shutdown_session()


async def _actions(client, uri, line):
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=line - 1, character=0),
                          end=types.Position(line=line - 1, character=0)),
        context=types.CodeActionContext(diagnostics=[])))


async def test_fill_hole_quick_fix(client: LanguageClient):
    uri = open_doc(client, QUESTIONS)
    text = QUESTIONS.read_text()
    acts = [a for a in await _actions(client, uri, 9) if a.title.startswith("Fill hole with")]
    assert len(acts) == 1 and acts[0].kind == types.CodeActionKind.QuickFix
    new = apply_edits(text, acts[0].edit.document_changes[0].edits)
    assert new.split("\n")[8] == "        self.fc = nn.Linear(4704, 10)"
    ast.parse(new)


async def test_eliminate_branch(client: LanguageClient):
    uri = QUESTIONS.as_uri()
    text = QUESTIONS.read_text()
    acts = [a for a in await _actions(client, uri, 14) if a.title.startswith("Eliminate branch")]
    assert len(acts) == 1
    new = apply_edits(text, acts[0].edit.document_changes[0].edits)
    ast.parse(new)
    assert "if h.dim() == 4" not in new and "        h = h.flatten(1)\n        return self.fc(h)" in new


async def test_commands_apply_their_edits(client: LanguageClient):
    uri = QUESTIONS.as_uri()
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.fillHole", arguments=[{"uri": uri, "line": 9, "col": 28}]))
    assert res["applied"] is True and client.applied
    edit = client.applied[-1].edit.document_changes[0]
    assert edit.text_document.uri == uri and edit.edits[0].new_text == "4704"
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.annotateFunction", arguments=[{"uri": uri, "function": "Net.forward"}]))
    assert res["status"] in ("static", "partial")
    if res["applied"]:
        new = apply_edits(QUESTIONS.read_text(), client.applied[-1].edit.document_changes[0].edits)
        ast.parse(new)
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.eliminateBranch", arguments=[{"uri": uri, "line": 3}]))
    assert res["applied"] is False
