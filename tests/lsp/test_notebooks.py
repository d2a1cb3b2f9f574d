"""Notebook documents through the real stdio server (LSP 3.17 notebookDocument/*): diagnostics
per cell, hover, inlay hints, a quick fix whose edit lands in its cell, a broken cell that
leaves the others' shapes, incremental re-analysis when one cell changes, close."""
from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import EXAMPLES, accept_applied_edits, apply_edits, initialize_params, push_capabilities, \
    server_config, wait_diagnostics

pytestmark = pytest.mark.asyncio(loop_scope="module")

NB = EXAMPLES / "notebook_demo.ipynb"  # never written: notebooks live in the client's memory here
CODE, MARKUP = types.NotebookCellKind.Code, types.NotebookCellKind.Markup

CELLS = [
    (MARKUP, "# Shapes in a notebook"),
    (CODE, "%matplotlib inline\nimport torch\nimport torch.nn as nn\n!echo hi"),
    (CODE, "def block(t):\n    h = t.sum(0)\n    return h"),
    (CODE, "x = torch.zeros(8, 3)\nw = torch.zeros(4, 5)\ns = x.sum(0)  # [5]"),
    (CODE, "z = x @ w\nx?"),
    (CODE, "def head(t):\n    return t.t()"),
]


def cell_uri(i: int, nb=NB) -> str:
    return f"vscode-notebook-cell:{nb}#cell{i}"


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: LanguageClient):
    accept_applied_edits(lsp_client)
    caps = push_capabilities()
    if caps.notebook_document is None:
        caps.notebook_document = types.NotebookDocumentClientCapabilities(
            synchronization=types.NotebookDocumentSyncClientCapabilities())
    result = await lsp_client.initialize_session(initialize_params(caps))
    lsp_client.server_notebook_sync = result.capabilities.notebook_document_sync
    yield
    await lsp_client.shutdown_session()


def open_notebook(client, cells, version=1, nb=NB):
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=nb.as_uri(), notebook_type="jupyter-notebook", version=version,
            cells=[types.NotebookCell(kind=k, document=cell_uri(i, nb)) for i, (k, _) in enumerate(cells)]),
        cell_text_documents=[types.TextDocumentItem(uri=cell_uri(i, nb), language_id="python" if k == CODE else "markdown",
                                                    version=1, text=t) for i, (k, t) in enumerate(cells)]))


def change_cell(client, i: int, text: str, nb_version: int, cell_version: int):
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(version=nb_version, uri=NB.as_uri()),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=cell_uri(i), version=cell_version),
                changes=[types.TextDocumentContentChangeWholeDocument(text=text)])]))))


async def hover(client, i, line, col):
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=cell_uri(i)), position=types.Position(line=line, character=col)))


async def stats(client):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.debug.stats", arguments=[{}]))


async def wait_version(client, uri, version):
    """The notebook's snapshot reached `version` (debug stats), generous guard."""
    for _ in range(600):
        s = await stats(client)
        if s["snapshots"].get(uri) == version:
            return s
        await asyncio.sleep(0.05)
    raise AssertionError(f"{uri} never reached version {version}")


async def test_open_diagnostics_per_cell_hover_and_hints(client: LanguageClient):
    assert client.server_notebook_sync is not None  # the server advertises notebook sync
    open_notebook(client, CELLS)
    clash = await wait_diagnostics(client, cell_uri(4))
    sh101 = [d for d in clash if d.code == "SH101"]
    assert len(sh101) == 1
    d = sh101[0]
    assert (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) == (0, 4, 0, 9)
    # its related information points into the cell that made x and w
    assert {(r.location.uri, r.location.range.start.line) for r in d.related_information} == \
        {(cell_uri(3), 0), (cell_uri(3), 1)}
    # the shape comment's warning is on cell 3's third line; the magics gave nothing
    cell3 = await wait_diagnostics(client, cell_uri(3))
    assert [(x.code, x.range.start.line) for x in cell3] == [("SH204", 2)]
    assert list(await wait_diagnostics(client, cell_uri(1))) == []
    # a pulling client (VS Code) asks per cell and gets the same
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=cell_uri(4))))
    assert [(x.code, x.range.start.line, x.range.start.character) for x in report.items] == [("SH101", 0, 4)]
    assert {r.location.uri for r in report.items[0].related_information} == {cell_uri(3)}
    h = await hover(client, 3, 1, 0)  # `w` in cell 3
    assert "[4, 5]" in h.contents.value and h.range.start.line == 1
    h = await hover(client, 2, 1, 4)  # `h` inside the function of cell 2
    assert h is not None and h.range.start.line == 1
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=cell_uri(3)),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=3, character=0))))
    labels = {h.position.line: h.label for h in hints}
    assert "[8, 3]" in labels[0] and "[4, 5]" in labels[1]
    resolved = await client.inlay_hint_resolve_async(hints[0])
    assert resolved.tooltip is not None


async def test_quick_fix_edit_lands_in_its_cell(client: LanguageClient):
    diags = await wait_diagnostics(client, cell_uri(3))
    acts = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=cell_uri(3)),
        range=types.Range(start=types.Position(line=2, character=0), end=types.Position(line=2, character=0)),
        context=types.CodeActionContext(diagnostics=list(diags), only=[types.CodeActionKind.QuickFix])))
    fix = next(a for a in acts if a.title.startswith("Update shape comment"))
    [change] = fix.edit.document_changes
    assert change.text_document.uri == cell_uri(3) and change.text_document.version == 1
    new = apply_edits(CELLS[3][1], change.edits)
    assert new.split("\n")[:2] == CELLS[3][1].split("\n")[:2]
    assert new.split("\n")[2] == "s = x.sum(0)  # [3]"
    assert fix.diagnostics[0].code == "SH204"


async def test_code_lens_in_cell(client: LanguageClient):
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=cell_uri(2))))
    # every lens (the run lens, the signatures' lenses) stands in the cell holding its function
    assert {lens.command.arguments[0]["uri"] for lens in lenses} == {cell_uri(2)}
    assert any(lens.range.start.line == 0 and lens.command.command == "shapehint.deviceRun" for lens in lenses)
    assert list(await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=cell_uri(3))))) == []


async def test_device_run_from_a_cell_runs_the_cells_up_to_it(client: LanguageClient):
    """The lens's command from cell 3: cells 1-3 run (magics skipped), cell 4 (x @ w) does not."""
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.deviceRun", arguments=[{"uri": cell_uri(3), "device": "cpu"}]))
    assert result["error"] is None
    lines = {it["name"]: it for it in result["lines"]}
    assert (lines["w"]["cell"], lines["w"]["line"], lines["w"]["observed"]) == (3, 2, [4, 5])
    assert "z" not in lines


async def test_editing_one_cell_is_incremental_and_a_broken_cell_is_confined(client: LanguageClient):
    await wait_version(client, NB.as_uri(), 1)
    # edit the cell of one function: only that function is analysed again, the other one's
    # summary is restored (module-level cells are in every function's key: workspace.py)
    change_cell(client, 5, "def head(t):\n    return t.t() * 2", 2, 2)
    s = await wait_version(client, NB.as_uri(), 2)
    assert s["reanalysed"][NB.as_uri()] == ["head"]
    # break cell 3 with an unclosed bracket: its error is its own, cell 4 still has its shapes
    change_cell(client, 3, "x = torch.zeros(8, 3)\nw = torch.zeros(4, 5)\ns = torch.cat([x,", 3, 2)
    await wait_version(client, NB.as_uri(), 3)
    cell3 = await wait_diagnostics(client, cell_uri(3), version=2)
    assert [(d.code, d.range.start.line) for d in cell3] == [("SH001", 2)]
    h = await hover(client, 4, 0, 4)  # `x` in `z = x @ w`, the cell after the broken one
    assert h is not None and "[8, 3]" in h.contents.value
    assert [d.code for d in await wait_diagnostics(client, cell_uri(4), version=1)] == ["SH101"]


async def test_close_clears_every_cell(client: LanguageClient):
    client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
        notebook_document=types.NotebookDocumentIdentifier(uri=NB.as_uri()),
        cell_text_documents=[types.TextDocumentIdentifier(uri=cell_uri(i)) for i in range(len(CELLS))]))
    for _ in range(600):
        if all(not client.diagnostics.get(cell_uri(i)) for i in range(len(CELLS))) and \
                NB.as_uri() not in (await stats(client))["snapshots"]:
            break
        await asyncio.sleep(0.05)
    assert all(not client.diagnostics.get(cell_uri(i)) for i in range(len(CELLS)))
    assert NB.as_uri() not in (await stats(client))["snapshots"]


async def test_a_command_with_a_cell_line_edits_that_cell(client: LanguageClient):
    """shapehint.fillHole {uri: a cell, line: a line of that cell}: the hole's value is written
    into that cell, through workspace/applyEdit."""
    nb = EXAMPLES / "notebook_holes.ipynb"
    cells = [(CODE, "import torch\nimport torch.nn as nn"),
             (CODE, "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.conv = nn.Conv2d(3, 6, 5)\n        self.fc = nn.Linear(__, 10)\n\n"
                    "    def forward(self, x):\n        assert x.shape[1:] == (3, 32, 32)\n"
                    "        return self.fc(self.conv(x).flatten(1))")]
    open_notebook(client, cells, nb=nb)
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.fillHole", arguments=[{"uri": cell_uri(1, nb), "line": 5, "col": 28}]))
    assert res["applied"] is True, res
    [change] = client.applied[-1].edit.document_changes
    assert change.text_document.uri == cell_uri(1, nb)
    new = apply_edits(cells[1][1], change.edits)
    assert new.split("\n")[4] == "        self.fc = nn.Linear(4704, 10)"
