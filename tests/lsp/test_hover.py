"""Hover through the real stdio server: tensor shapes with dimension origins, layers, ints."""
from __future__ import annotations

import re

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import EXAMPLES, find, initialize_params, open_doc, pos, push_capabilities, server_config

pytestmark = pytest.mark.asyncio(loop_scope="module")

# Symbol names may come from the program (B, H) or from the parameter (x.shape[0]).
B = r"(B|x\.shape\[0\])"
H = r"(H|x\.shape\[2\])"
W = r"(W|x\.shape\[3\])"


@pytest_lsp.fixture(scope="module", config=server_config())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(initialize_params(push_capabilities()))
    yield
    await lsp_client.shutdown_session()


async def _hover(client, name: str, position: types.Position):
    uri = open_doc(client, EXAMPLES / name) if (EXAMPLES / name).as_uri() not in \
        client.protocol.workspace_documents else (EXAMPLES / name).as_uri()
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position))


@pytest.fixture(scope="module", autouse=True)
def _docs(client):
    client.protocol.workspace_documents = set()
    for name in ("down.py", "cnn.py"):
        client.protocol.workspace_documents.add(open_doc(client, EXAMPLES / name))


async def test_tensor_hover_shows_shape_and_dimension_origins(client: LanguageClient):
    text = (EXAMPLES / "down.py").read_text()
    h = await _hover(client, "down.py", find(text, "y = self.conv"))
    assert h.contents.kind == types.MarkupKind.Markdown
    md = h.contents.value
    assert re.search(rf"`Tensor\[{B}, 64, \({H} - 1\)//2 \+ 1, \({W} - 1\)//2 \+ 1\]`", md), md
    assert md.startswith("**y**")
    assert re.search(r"axis 2", md), "the origin of H is listed"
    assert h.range.start == find(text, "y = self.conv")


async def test_layer_hover_shows_configuration_and_io(client: LanguageClient):
    text = (EXAMPLES / "down.py").read_text()
    md = (await _hover(client, "down.py", find(text, "self.conv(x)"))).contents.value
    assert "Conv2d(" in md and "out_channels=64" in md and "stride=2" in md
    assert re.search(rf"\[{B}, .*\] → \[{B}, 64, ", md), md


async def test_hover_after_linear_and_int_expression(client: LanguageClient):
    text = (EXAMPLES / "cnn.py").read_text()
    md = (await _hover(client, "cnn.py", find(text, "h = F.relu(self.fc1"))).contents.value
    assert re.search(rf"`Tensor\[{B}, 120\]`", md), md
    at = find(text, "14 * 14")
    at.character += 5  # the second 14: only `6 * 14 * 14` contains it
    md = (await _hover(client, "cnn.py", at)).contents.value
    assert "1176" in md, md


async def test_hover_on_buggy_layer_call(client: LanguageClient):
    text = (EXAMPLES / "cnn.py").read_text()
    md = (await _hover(client, "cnn.py", find(text, "self.fc2", 1))).contents.value
    assert "in_features=128" in md


async def test_hover_shows_dtype_and_annotation_names(client: LanguageClient):
    path = EXAMPLES / "typed.py"
    uri = open_doc(client, path)
    h = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=find(path.read_text(), "y = x")))
    md = h.contents.value
    assert md.startswith("**y**: `Tensor[B, 4]`") and "`float" in md, md
    assert re.search(r"- `B`: .*annotation|- `B`: .*x", md), md


async def test_no_hover_where_nothing_is_known(client: LanguageClient):
    assert await _hover(client, "cnn.py", pos(1, 3)) is None


async def test_hover_after_a_one_line_edit_answers_for_the_new_version(client: LanguageClient):
    """The edit path publishes diagnostics before the records exist and compacts the result
    afterwards: hovers right after the edit, on the edited line and on another one, see the
    new version."""
    from .conftest import wait_diagnostics
    path = EXAMPLES / "down_edit.py"
    text = (EXAMPLES / "down.py").read_text().replace("class Down(", "class DownEdit(")
    uri = open_doc(client, path, text)
    await wait_diagnostics(client, uri, version=1)
    at = find(text, "z = y.mean(dim=(2, 3))")
    new = "z = y.mean(dim=(3,))"
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=at, end=types.Position(line=at.line, character=at.character + 22)),
            text=new)]))
    await wait_diagnostics(client, uri, version=2)
    edited = text.replace("z = y.mean(dim=(2, 3))", new)
    for needle, expected in (("z = y.mean", rf"`Tensor\[{B}, 64, \({H} - 1\)//2 \+ 1\]`"),
                             ("y = self.conv", rf"`Tensor\[{B}, 64, \({H} - 1\)//2 \+ 1, ")):
        h = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=find(edited, needle)))
        assert re.search(expected, h.contents.value), h.contents.value
