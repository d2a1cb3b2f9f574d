"""Shared helpers for the pytest-lsp tests: the real `shapehint lsp` over stdio.

Each test module starts one server (module-scoped fixture, RECIPES) with test hooks enabled
(SHAPEHINT_TEST_HOOKS=1: the hidden shapehint.debug.* commands) and a short debounce.
"""
from __future__ import annotations

import os
import pathlib
import sys
from typing import Union

from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, LanguageClient, register_lsp_features
from pygls.protocol import default_converter

HERE = pathlib.Path(__file__).parent
EXAMPLES = HERE / "examples"
ROOT = HERE.parent.parent


def make_client():
    """The test client, with a converter hook so a CodeAction carrying a command is not read
    as a Command (RECIPES: pytest-lsp trap)."""
    client = LanguageClient(converter_factory=default_converter)
    client.publish_log = []  # every publishDiagnostics: (uri, version, diagnostics)
    client.published_versions = {}
    client.statuses = []
    client.registrations = []
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES,
                                   types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _on_publish,
                                   types.CLIENT_REGISTER_CAPABILITY: _on_register,
                                   "shapehint/status": _on_status})
    conv = client.protocol._converter

    def structure(obj, _type):
        if isinstance(obj, dict) and isinstance(obj.get("command"), str):
            return conv.structure(obj, types.Command)
        return conv.structure(obj, types.CodeAction)

    conv.register_structure_hook(Union[types.Command, types.CodeAction], structure)
    return client


def _on_publish(client: LanguageClient, params: types.PublishDiagnosticsParams):
    client.diagnostics[params.uri] = params.diagnostics
    client.published_versions[params.uri] = params.version
    client.publish_log.append((params.uri, params.version, list(params.diagnostics)))


def _on_register(client: LanguageClient, params: types.RegistrationParams):
    client.registrations.extend(params.registrations)


def _on_status(client: LanguageClient, params):
    client.statuses.append(params)


def accept_applied_edits(client) -> None:
    """Answer workspace/applyEdit with `applied`, keeping each request in `client.applied`."""
    client.applied = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def _apply(params: types.ApplyWorkspaceEditParams):
        client.applied.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)


def server_config(**env) -> ClientServerConfig:
    full = {**os.environ, "SHAPEHINT_TEST_HOOKS": "1", "SHAPEHINT_DEBOUNCE_MS": "50",
            "PYTHONPATH": os.pathsep.join([str(ROOT / "server"), os.environ.get("PYTHONPATH", "")]),
            **env}
    command = [sys.executable, "-m", "shapehint", "lsp"]  # the real `shapehint lsp`
    return ClientServerConfig(server_command=command, server_env=full, client_factory=make_client)


def push_capabilities() -> types.ClientCapabilities:
    """VS Code's capabilities (as pytest-lsp records them) plus inlay hints with resolve; no
    pull diagnostics: the server pushes."""
    caps = client_capabilities("visual-studio-code")
    caps.text_document.diagnostic = None
    caps.text_document.inlay_hint = types.InlayHintClientCapabilities(
        resolve_support=types.ClientInlayHintResolveOptions(properties=["tooltip"]))
    return caps


def pull_capabilities() -> types.ClientCapabilities:
    caps = push_capabilities()
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(related_document_support=False)
    return caps


def initialize_params(caps, root: pathlib.Path = EXAMPLES, options=None) -> types.InitializeParams:
    return types.InitializeParams(capabilities=caps, root_uri=root.as_uri(),
                                  workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
                                  initialization_options=options)


def open_doc(client, path: pathlib.Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=version,
        text=path.read_text("utf-8") if text is None else text)))
    return uri


def change_doc(client, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


def pos(line: int, col: int) -> types.Position:
    """1-based line (as editors show it), 0-based column -> LSP Position."""
    return types.Position(line=line - 1, character=col)


def find(text: str, needle: str, nth: int = 0) -> types.Position:
    """LSP position of the nth occurrence of `needle` (ASCII examples)."""
    idx = -1
    for _ in range(nth + 1):
        idx = text.index(needle, idx + 1)
    line = text.count("\n", 0, idx)
    col = idx - (text.rfind("\n", 0, idx) + 1)
    return types.Position(line=line, character=col)


def apply_edits(text: str, edits) -> str:
    """Apply LSP TextEdits (ASCII text) back to front."""
    lines = text.split("\n")
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln) + 1)

    def off(p):
        return offsets[p.line] + p.character

    for e in sorted(edits, key=lambda e: off(e.range.start), reverse=True):
        text = text[:off(e.range.start)] + e.new_text + text[off(e.range.end):]
    return text


async def wait_diagnostics(client, uri: str, version: int | None = None, guard: float = 60.0):
    """Wait for a publishDiagnostics of `uri` (at `version` when given); generous guard."""
    import asyncio
    loop = asyncio.get_running_loop()
    deadline = loop.time() + guard
    while True:
        got = client.diagnostics.get(uri)
        ver = client.published_versions.get(uri)
        if got is not None and (version is None or ver == version):
            return got
        if loop.time() > deadline:
            raise AssertionError(f"no diagnostics for {uri} at version {version}")
        try:
            await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS),
                                   timeout=max(0.1, deadline - loop.time()))
        except asyncio.TimeoutError:
            pass
