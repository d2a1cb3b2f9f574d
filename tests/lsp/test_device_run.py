"""`shapehint.deviceRun` through the real stdio server (needs torch; skipped without it):
the runtime error lands as SH502 beside the static SH101, with a result notification."""
from __future__ import annotations

import asyncio
import importlib.util

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import EXAMPLES, change_doc, initialize_params, open_doc, push_capabilities, server_config, \
    wait_diagnostics

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")]

CNN = EXAMPLES / "cnn.py"


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: LanguageClient):
    lsp_client.run_results = []

    @lsp_client.feature("shapehint/deviceRunResult")
    def _result(params):
        lsp_client.run_results.append(params)

    await lsp_client.initialize_session(initialize_params(push_capabilities()))
    yield
    await lsp_client.shutdown_session()


async def test_device_run_reports_the_runtime_error(client: LanguageClient):
    uri = open_doc(client, CNN)
    await wait_diagnostics(client, uri, version=1)
    result = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.deviceRun", arguments=[{"uri": uri, "device": "cpu", "inputs": {"x": "2,3,32,32"}}])),
        timeout=120)
    assert result["error"]["line"] == 19 and "128" in result["error"]["message"]
    for _ in range(200):
        codes = {d.code for d in client.diagnostics[uri]}
        if "SH502" in codes:
            break
        await asyncio.sleep(0.05)
    assert {"SH101", "SH502"} <= codes
    sh502 = [d for d in client.diagnostics[uri] if d.code == "SH502"][0]
    assert sh502.range.start.line == 18 and sh502.code_description.href.endswith("SH502.md")
    assert client.run_results and client.run_results[-1].uri == uri
    # an edit makes the run's diagnostics stale: they go with the next publication
    change_doc(client, uri, CNN.read_text() + "\n", 2)
    diags = await wait_diagnostics(client, uri, version=2)
    assert "SH502" not in {d.code for d in diags}


async def test_untrusted_workspace_is_refused(client: LanguageClient):
    uri = CNN.as_uri()
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.deviceRun", arguments=[{"uri": uri, "device": "cpu", "trusted": False}]))
    assert result["error"]["type"] == "Untrusted"


async def test_run_shapes_code_lens_above_each_runnable_entry(client: LanguageClient):
    uri = open_doc(client, CNN)
    await wait_diagnostics(client, uri)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert lenses, "no Run shapes lens"
    text = CNN.read_text().split("\n")
    for lens in lenses:
        assert lens.command.command == "shapehint.deviceRun"
        entry = lens.command.arguments[0]["entry"]
        line = text[lens.range.start.line]
        assert line.lstrip().startswith(("class ", "def ")) and entry.split(".")[-1] in line
    # running the lens's command runs that entry
    lens = next(x for x in lenses if x.command.arguments[0]["entry"] == "Net")
    args = dict(lens.command.arguments[0], device="meta", inputs={"x": "2,3,32,32"})
    result = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.deviceRun", arguments=[args])), timeout=120)
    assert result["device"] == "meta" and "Net" in (result["entry"] or "")
