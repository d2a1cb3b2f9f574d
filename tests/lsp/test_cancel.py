"""Real cancellation: $/cancelRequest interrupts the job's Z3 context; the worker then answers
the next request. The slow query is deterministic (Z3 rlimit), guards are generous; no timing
is asserted."""
from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from .conftest import EXAMPLES, initialize_params, open_doc, push_capabilities, server_config, find

pytestmark = pytest.mark.asyncio(loop_scope="module")

HUGE = 4_000_000_000  # minutes of Z3 work if nothing stopped it


@pytest_lsp.fixture(scope="module", config=server_config(SHAPEHINT_WORKERS="1"))
async def client(lsp_client: LanguageClient):
    # One worker thread: the next request can only be answered if the slow query really stopped.
    await lsp_client.initialize_session(initialize_params(push_capabilities()))
    yield
    await lsp_client.shutdown_session()


async def _stats(client):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.debug.stats", arguments=[{}]))


async def _until(client, pred, guard: float = 60.0):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + guard
    while loop.time() < deadline:
        stats = await _stats(client)
        if pred(stats):
            return stats
        await asyncio.sleep(0.02)
    raise AssertionError("condition not reached within the guard")


async def test_cancel_interrupts_the_solver_and_the_worker_answers_next(client: LanguageClient):
    msg_id = "slow-1"
    fut = asyncio.ensure_future(client.protocol.send_request_async(
        types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(
            command="shapehint.debug.slowQuery", arguments=[{"rlimit": HUGE}]), msg_id=msg_id))
    await _until(client, lambda s: (s["last_slow_query"] or {}).get("state") == "solving")
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
    with pytest.raises((JsonRpcException, asyncio.CancelledError)):
        await asyncio.wait_for(fut, timeout=60)
    stats = await _until(client, lambda s: (s["last_slow_query"] or {}).get("state") == "done")
    assert stats["last_slow_query"]["interrupted"] is True
    assert stats["last_slow_query"]["result"] == "unknown"
    assert stats["running"].get("slowQuery", 0) == 0
    assert stats["stats"]["cancelled_requests"] >= 1

    # The single worker thread is free again: a small query and an analysis both complete.
    small = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.debug.slowQuery", arguments=[{"rlimit": 20_000}])), timeout=60)
    assert small["state"] == "done" and small["interrupted"] is False
    path = EXAMPLES / "cnn.py"
    uri = open_doc(client, path)
    hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=find(path.read_text(), "self.fc2", 1))),
        timeout=60)
    assert hover is not None


async def test_long_work_reports_progress(client: LanguageClient):
    await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.debug.slowQuery", arguments=[{"rlimit": 20_000}]))
    reports = [r for tok, rs in client.progress_reports.items() if "slowQuery" in str(tok) for r in rs]
    kinds = [r.kind for r in reports]
    assert "begin" in kinds and "end" in kinds


async def test_declared_commands_are_registered(client: LanguageClient):
    import json
    from importlib import resources
    declared = json.loads(resources.files("shapehint._shared").joinpath("commands.json").read_text())["server"]
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapehint.debug.stats", arguments=[{}]))
    assert set(declared) <= set(result["commands"])
