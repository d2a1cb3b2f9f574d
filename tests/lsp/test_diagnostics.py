"""Pushed diagnostics through the real stdio server: codes, related information, docs links,
suppression comments, and stale results never published."""
from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import EXAMPLES, change_doc, initialize_params, open_doc, push_capabilities, server_config, \
    wait_diagnostics

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(initialize_params(push_capabilities()))
    yield
    await lsp_client.shutdown_session()


CNN = EXAMPLES / "cnn.py"


async def test_linear_bug_reported_with_related_information(client: LanguageClient):
    uri = open_doc(client, CNN)
    diags = await wait_diagnostics(client, uri, version=1)
    errors = [d for d in diags if d.code == "SH101"]
    assert len(errors) == 1, diags
    err = errors[0]
    text = CNN.read_text()
    assert err.severity == types.DiagnosticSeverity.Error
    assert err.range.start.line == 18  # `out = self.fc2(h)` (line 19)
    assert text.split("\n")[18][err.range.start.character:].startswith("self.fc2")
    assert err.source == "shapehint"
    assert err.code_description.href.endswith("/docs/codes/SH101.md")
    assert "128" in err.message and "120" in err.message
    assert err.related_information, "the __init__ line that fixed in_features is related"
    rel = err.related_information[0]
    assert rel.location.uri == uri and rel.location.range.start.line == 11  # nn.Linear(128, 10)


async def test_suppression_comment_hides_the_error(client: LanguageClient):
    text = CNN.read_text().replace("out = self.fc2(h)", "out = self.fc2(h)  # shapehint: ignore[SH101]")
    path = EXAMPLES / "cnn_suppressed.py"
    uri = open_doc(client, path, text)
    diags = await wait_diagnostics(client, uri, version=1)
    assert not [d for d in diags if d.code == "SH101"]
    change_doc(client, uri, text.replace("ignore[SH101]", "ignore[SH204]"), 2)
    diags = await wait_diagnostics(client, uri, version=2)
    assert [d for d in diags if d.code == "SH101"], "a comment for another code does not hide it"
    change_doc(client, uri, text.replace("ignore[SH101]", "ignore"), 3)
    diags = await wait_diagnostics(client, uri, version=3)
    assert not [d for d in diags if d.code == "SH101"], "a bare ignore hides every code"


async def test_stale_results_are_never_published(client: LanguageClient):
    """An analysis that finishes after the document moved on is dropped, not published."""
    buggy = CNN.read_text()
    fixed = buggy.replace("nn.Linear(128, 10)", "nn.Linear(120, 10)")
    path = EXAMPLES / "cnn_stale.py"
    uri = open_doc(client, path, fixed)
    assert not [d for d in await wait_diagnostics(client, uri, version=1) if d.code == "SH101"]
    await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.debug.hold", arguments=[{"on": True}]))
    try:
        change_doc(client, uri, buggy, 2)
        await _until(client, lambda s: s["running"].get("analysis", 0) >= 1)  # v2 is being analysed
        change_doc(client, uri, fixed, 3)
    finally:
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="shapehint.debug.hold", arguments=[{"on": False}]))
    diags = await wait_diagnostics(client, uri, version=3)
    assert not [d for d in diags if d.code == "SH101"]
    versions = [v for u, v, _ in client.publish_log if u == uri]
    assert 2 not in versions, versions
    stats = await _stats(client)
    assert stats["stats"].get("dropped", 0) >= 1
    assert stats["snapshots"][uri] == 3


async def test_rapid_incremental_edits_settle_on_the_last_version(client: LanguageClient):
    import random
    text = CNN.read_text()
    path = EXAMPLES / "cnn_edits.py"
    uri = open_doc(client, path, text)
    rng = random.Random(4)
    lines = text.split("\n")
    version = 1
    for _ in range(20):
        version += 1
        line = rng.randrange(len(lines))
        col = rng.randint(0, len(lines[line]))
        piece = rng.choice(["x", ")", "(", " # [B]", ".view(-1)", "", "é"])
        lines[line] = lines[line][:col] + piece + lines[line][col:]
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=line, character=col),
                                  end=types.Position(line=line, character=col)), text=piece)]))
    await wait_diagnostics(client, uri, version=version)
    stats = await _stats(client)
    assert stats["snapshots"][uri] == version
    published = [v for u, v, _ in client.publish_log if u == uri]
    assert published == sorted(published), "never an older version after a newer one"


async def test_close_clears_diagnostics(client: LanguageClient):
    uri = (EXAMPLES / "cnn_suppressed.py").as_uri()
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []


async def _stats(client):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.debug.stats", arguments=[{}]))


async def _until(client, pred, guard: float = 60.0):
    import asyncio
    loop = asyncio.get_running_loop()
    deadline = loop.time() + guard
    while loop.time() < deadline:
        if pred(await _stats(client)):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not reached")
