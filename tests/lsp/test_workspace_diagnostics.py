"""`workspace/diagnostic` serves the files that are not open from the cache `shapehint check`
filled, without analysing them (lsp/workspace_diags.py): the worker's `analyses` counter stays
at zero while the cached answers arrive."""
from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import ROOT, initialize_params, open_doc, pull_capabilities, server_config

pytestmark = pytest.mark.asyncio(loop_scope="module")

BUG = '''import torch
import torch.nn as nn

fc = nn.Linear(128, 10)
y = fc(torch.zeros(4, 120))
'''
OK = "import torch\n\nx = torch.zeros(2, 3)\n"
TF = "import tensorflow as tf\n\n\ndef f(x):\n    return x.view(2, 3) + x.view(4, 5)\n"

PROJECT = pathlib.Path(tempfile.mkdtemp(prefix="shapehint-wsdiag-"))
SERVED: dict = {}  # what the cache gave, to compare with an analysis of the open file


def _fill_project() -> None:
    (PROJECT / "pyproject.toml").write_text("[tool.shapehint]\n")
    (PROJECT / "bug.py").write_text(BUG)
    (PROJECT / "ok.py").write_text(OK)
    (PROJECT / "tf_model.py").write_text(TF)
    env = {"PYTHONPATH": str(ROOT / "server")}
    import os
    p = subprocess.run([sys.executable, "-m", "shapehint", "check", ".", "--jobs", "1"], cwd=PROJECT,
                       env={**os.environ, **env}, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1 and "SH101" in p.stdout, p.stderr
    (PROJECT / "later.py").write_text(BUG)  # written after the check: not in the cache


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: LanguageClient):
    _fill_project()
    result = await lsp_client.initialize_session(initialize_params(pull_capabilities(), root=PROJECT))
    lsp_client.init_result = result
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(PROJECT, ignore_errors=True)


async def _stats(client):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.debug.stats", arguments=[{}]))


async def test_the_server_says_it_has_workspace_diagnostics(client: LanguageClient):
    provider = client.init_result.capabilities.diagnostic_provider
    assert provider is not None and provider.workspace_diagnostics


async def test_files_not_open_are_served_from_the_cache(client: LanguageClient):
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    by = {pathlib.Path(r.uri.replace("file://", "")).name: r for r in report.items}
    assert set(by) == {"bug.py", "ok.py", "tf_model.py"}, "later.py has no entry: not analysed, not reported"
    bug = by["bug.py"].items
    assert [d.code for d in bug] == ["SH101"] and bug[0].range.start.line == 4
    assert bug[0].severity == types.DiagnosticSeverity.Error
    SERVED["bug.py"] = bug
    assert list(by["ok.py"].items) == [] and list(by["tf_model.py"].items) == []
    stats = await _stats(client)
    assert stats["stats"].get("analyses", 0) == 0, "nothing was analysed"
    assert stats["workspace_diagnostics"] == {"from_cache": 2, "not_torch": 1, "not_cached": 1}


async def test_open_files_are_left_to_the_document_pull(client: LanguageClient):
    uri = open_doc(client, PROJECT / "bug.py")
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    assert "bug.py" not in {pathlib.Path(r.uri).name for r in report.items}
    analysed = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert list(analysed.items) == list(SERVED["bug.py"]), "the cache served what an analysis of the file gives"
    assert (await _stats(client))["stats"]["analyses"] == 1


async def test_an_open_file_that_does_not_use_pytorch_gets_no_shape_diagnostics(client: LanguageClient):
    for text, expected in ((TF, []), (TF.replace("import tensorflow as tf", "import torch"), ["SH106"])):
        uri = open_doc(client, PROJECT / "tf_model.py", text=text, version=len(expected) + 1)
        got = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        assert [d.code for d in got.items] == expected
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
