"""Inferred input signatures through the real stdio server: hover on a class / `def` name, the
typical-input code lens, and the quick fix whose edit re-analyses clean."""
from __future__ import annotations

import ast

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.signatures import signatures_json

from .conftest import EXAMPLES, apply_edits, find, initialize_params, open_doc, push_capabilities, server_config, \
    wait_diagnostics

pytestmark = pytest.mark.asyncio(loop_scope="module")

LENET = EXAMPLES.parent.parent / "signatures" / "programs" / "lenet.py"  # (the run tests' LeNet)
VIT = EXAMPLES / "sig" / "vit_jax.py"


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(initialize_params(push_capabilities()))
    yield
    await lsp_client.shutdown_session()


async def _hover(client, uri, position):
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position))


async def _actions(client, uri, line):
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=line - 1, character=0), end=types.Position(line=line - 1, character=0)),
        context=types.CodeActionContext(diagnostics=[])))


async def test_hover_on_the_class_and_on_def_forward_shows_the_signature(client: LanguageClient):
    uri = open_doc(client, LENET)
    await wait_diagnostics(client, uri, 1)
    text = LENET.read_text()
    for pos in (find(text, "LeNet"), find(text, "forward")):
        h = await _hover(client, uri, pos)
        assert h is not None
        value = h.contents.value
        assert "**LeNet.forward** takes" in value and "`x`: `Tensor[B, 1, H, W]`" in value
        assert "typical `[2, 1, 28, 28]`" in value and "== 400" in value


async def test_code_lens_shows_the_typical_input_and_runs_it(client: LanguageClient):
    uri = LENET.as_uri()
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    typical = [lens for lens in lenses if lens.command.title.startswith("Typical input")]
    assert [lens.command.title for lens in typical] == ["Typical input: x=[2, 1, 28, 28]"]
    assert typical[0].range.start.line == LENET.read_text().split("\n").index("class LeNet(nn.Module):")
    args = typical[0].command.arguments[0]
    assert typical[0].command.command == "shapehint.deviceRun" and args["entry"] == "LeNet"
    assert args["inputs"] == {"x": "2,1,28,28"}


def _clean(text: str, path) -> list:
    result = analyze_session(text, str(path))
    return [d for d in result.result.diagnostics if d.severity == "error"], \
        {s["function"]: s for s in signatures_json(result)}


async def test_quick_fix_writes_an_assert_that_reanalyses_clean(client: LanguageClient):
    uri = LENET.as_uri()
    text = LENET.read_text()
    line = text.split("\n").index("    def forward(self, x):") + 1
    acts = [a for a in await _actions(client, uri, line) if "inferred signature" in a.title]
    assert len(acts) == 1 and acts[0].kind == types.CodeActionKind.QuickFix
    new = apply_edits(text, acts[0].edit.document_changes[0].edits)
    ast.parse(new)
    assert "        assert x.ndim == 4 and x.shape[1] == 1 and 16*((x.shape[2]//2)//2)" in new
    errors, sigs = _clean(new, LENET)
    assert errors == []
    x = sigs["LeNet.forward"]["params"][0]
    assert x["shape"][1] == 1 and x["example"] == [2, 1, 28, 28]


async def test_quick_fix_in_a_jaxtyping_file_is_symbolic_where_the_code_leaves_a_dim_free(client: LanguageClient):
    uri = open_doc(client, VIT)
    await wait_diagnostics(client, uri, 1)
    text = VIT.read_text()
    line = text.split("\n").index("    def forward(self, x):") + 1
    acts = [a for a in await _actions(client, uri, line) if "inferred signature" in a.title]
    assert len(acts) == 1
    new = apply_edits(text, acts[0].edit.document_changes[0].edits)
    assert 'def forward(self, x: Float[Tensor, "B 3 H W"]):' in new
    errors, sigs = _clean(new, VIT)
    assert errors == [] and sigs["Patches.forward"]["params"][0]["shape"] == ["B", 3, "H", "W"]


async def test_run_shapes_lens_without_inputs_takes_the_typical_one(client: LanguageClient):
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.deviceRun", arguments=[{"uri": LENET.as_uri(), "entry": "LeNet", "device": "meta"}]))
    assert res["error"] is None
    x = res["inputs"]["x"]
    assert x["shape"] == [2, 1, 28, 28] and x["source"] == "inferred" and "LeNet.forward" in x["reason"]
    assert res["mismatches"] == [] and res["summary"]["match"] >= 1
