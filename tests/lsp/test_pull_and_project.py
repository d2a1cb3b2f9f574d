"""Pull diagnostics (a client with textDocument/diagnostic) and the project's
[tool.shapehint] table (disabled codes, severities, exclude, solver limits)."""
from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import EXAMPLES, initialize_params, open_doc, pull_capabilities, server_config

pytestmark = pytest.mark.asyncio(loop_scope="module")

PROJECT = EXAMPLES / "project"


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(initialize_params(pull_capabilities(), root=PROJECT))
    yield
    await lsp_client.shutdown_session()


async def _pull(client, uri, previous=None):
    return await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous))


async def test_pull_reports_with_result_ids(client: LanguageClient):
    uri = open_doc(client, EXAMPLES / "cnn.py")
    report = await _pull(client, uri)
    assert report.kind == "full" and report.result_id == f"{uri}@1"
    err = [d for d in report.items if d.code == "SH101"][0]
    assert err.severity == types.DiagnosticSeverity.Error and err.related_information
    again = await _pull(client, uri, previous=report.result_id)
    assert again.kind == "unchanged" and again.result_id == report.result_id
    assert uri not in client.diagnostics, "a pull client gets no pushed diagnostics"


async def test_project_config_applies(client: LanguageClient):
    uri = open_doc(client, PROJECT / "model.py")
    items = (await _pull(client, uri)).items
    codes = {d.code: d for d in items}
    assert "SH301" not in codes, "disabled in [tool.shapehint]"
    assert codes["SH101"].severity == types.DiagnosticSeverity.Warning, "severity override"
    stats = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.debug.stats", arguments=[{}]))
    assert stats["limits"][uri] == [50, 300000], "solver limits from [tool.shapehint.solver]"


async def test_the_server_watches_pyproject_files(client: LanguageClient):
    regs = [r for r in client.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    assert regs and "pyproject.toml" in str(regs[0].register_options)


async def test_excluded_files_are_not_analysed(client: LanguageClient):
    uri = open_doc(client, PROJECT / "skipped" / "model.py")
    assert list((await _pull(client, uri)).items) == []


async def test_invalid_project_entries_are_reported_once(client: LanguageClient):
    uri = open_doc(client, EXAMPLES / "badproject" / "model.py")
    items = (await _pull(client, uri)).items
    err = [d for d in items if d.code == "SH101"][0]
    assert err.severity == types.DiagnosticSeverity.Error, "the invalid override is ignored"
    msgs = [m for m in client.messages if "SH003" in m.message and "fatal" in m.message]
    assert len(msgs) == 1 and msgs[0].type == types.MessageType.Warning


@pytest_lsp.fixture(scope="module", config=server_config())
async def plain_client(lsp_client: LanguageClient):
    """A client without workspace/configuration: settings come from initializationOptions
    (flat keys, as the VS Code extension sends them) and didChangeConfiguration."""
    caps = pull_capabilities()
    caps.workspace.configuration = False
    await lsp_client.initialize_session(initialize_params(
        caps, options={"settings": {"shapehint.inlayHints": "all", "shapehint.solver.rlimit": -5}}))
    yield
    await lsp_client.shutdown_session()


async def test_initialization_options_and_pushed_settings(plain_client: LanguageClient):
    client = plain_client
    uri = open_doc(client, EXAMPLES / "hints.py")
    rng = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=30, character=0))
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=rng))
    assert 14 in [h.position.line for h in hints], "mode all from initializationOptions"
    assert any("shapehint.solver.rlimit" in m.message and "SH003" in m.message for m in client.messages)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"shapehint": {"inlayHints": "off"}}))
    await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.debug.stats", arguments=[{}]))  # ordered after the notification
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=rng))
    assert list(hints) == []
