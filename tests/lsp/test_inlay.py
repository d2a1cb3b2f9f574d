"""Inlay hints and their resolve; the `shapehint.inlayHints` setting (off | assignments | all)
and invalid values (SH003 through window/showMessage, default used)."""
from __future__ import annotations

import asyncio
import re

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import EXAMPLES, initialize_params, open_doc, push_capabilities, server_config

pytestmark = pytest.mark.asyncio(loop_scope="module")

HINTS = EXAMPLES / "hints.py"
B = r"(B|x\.shape\[0\])"


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(initialize_params(push_capabilities()))
    yield
    await lsp_client.shutdown_session()


async def _hints(client, path=HINTS):
    uri = path.as_uri()
    if uri not in client.protocol._opened:
        client.protocol._opened.add(open_doc(client, path))
    return await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=100, character=0))))


async def _configure(client, value):
    """Change the setting the way VS Code does: new configuration, then the notification."""
    client.set_configuration({"inlayHints": value}, section="shapehint")
    n = len(client.messages)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    # the server re-reads its section; a stats round trip orders us after that
    for _ in range(200):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="shapehint.debug.stats", arguments=[{}]))
        if value in ("off", "assignments", "all") or len(client.messages) > n:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)


@pytest.fixture(scope="module", autouse=True)
def _opened(client):
    client.protocol._opened = set()


async def test_assignment_hints_skip_annotated_and_commented_lines(client: LanguageClient):
    hints = await _hints(client)
    by_line = {h.position.line + 1: h for h in hints}
    assert list(by_line) == [12], hints  # y = self.conv(x)
    assert re.fullmatch(rf": \[{B}, 64, .*\]", by_line[12].label)
    assert by_line[12].position.character == len("        y")
    # line 13 carries a matching shape comment, line 14 an annotation, line 15 is no assignment


async def test_resolve_adds_a_tooltip(client: LanguageClient):
    hint = [h for h in await _hints(client) if h.position.line == 11][0]
    resolved = await client.inlay_hint_resolve_async(hint)
    assert re.search(rf"Tensor\[{B}, 64, ", resolved.tooltip.value)
    assert "axis 0" in resolved.tooltip.value


async def test_setting_all_and_off(client: LanguageClient):
    await _configure(client, "all")
    hints = await _hints(client)
    assert [h.position.line + 1 for h in hints] == [12, 15], hints
    assert re.fullmatch(rf" → \[{B}, 10\]", hints[1].label)
    await _configure(client, "off")
    assert list(await _hints(client)) == []


async def test_invalid_setting_is_reported_and_the_default_used(client: LanguageClient):
    await _configure(client, "sometimes")
    msgs = [m.message for m in client.messages if "SH003" in m.message]
    assert msgs and "shapehint.inlayHints" in msgs[-1] and "sometimes" in msgs[-1]
    hints = await _hints(client)
    assert [h.position.line + 1 for h in hints] == [12]  # the default: assignments
    await _configure(client, "assignments")
