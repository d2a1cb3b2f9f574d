"""`shapehint.deviceRun`: run the module on a device and compare observed with inferred shapes.

Arguments (shared/commands.json): `{uri, entry?, device?, inputs?, trusted?}`. The run is a
worker job with a work-done progress; `$/cancelRequest` (or cancelling the progress) sets the
job, which the device runner polls to kill the child process group. Its SH5xx diagnostics are
kept per document version beside the analysis's and published with them until the document
changes; the client also gets `shapehint/deviceRunResult {uri, summary}`. A workspace the
client marked untrusted (`initializationOptions.trusted == false`) is refused.
Tests: tests/lsp/test_device_run.py.
"""
from __future__ import annotations

import sys

from pygls import uris

from .commands import command
from .worker import Job


def _to_diagnostics(items: list) -> list:
    from ..analysis.result import Diagnostic, Related
    out = []
    for d in items:
        related = [Related(r["line"], r["col"], r.get("message", ""), r.get("file")) for r in d.get("related", [])]
        out.append(Diagnostic(d["line"], d["col"], d["end_line"], d["end_col"], d["severity"], d["code"],
                              d["message"], related))
    return out


@command("shapehint.deviceRun")
async def device_run(server, args: dict):
    uri = args.get("uri")
    if not isinstance(uri, str):
        raise ValueError("shapehint.deviceRun needs {uri}")
    from . import notebooks
    cells = notebooks.run_source(server, uri)  # a notebook cell: the code cells up to it
    if cells is not None:
        uri, version, joined = cells
        text = joined.text
    else:
        doc = server.workspace.get_text_document(uri)
        text, version, joined = doc.source, doc.version, None
    path = uris.to_fs_path(uri) or uri
    conf = server.settings.device_run
    # both must allow it: a command argument cannot lift the client's untrusted-workspace flag
    trusted = bool(server.initialization_options.get("trusted", True)) and bool(args.get("trusted", True))
    device = args.get("device") or conf.device
    interpreter = conf.interpreter or sys.executable
    config = server.config_for(path)
    job = server.worker.track(Job("deviceRun", uri=uri, version=version, request_id=server.protocol.msg_id))

    def body(job: Job):
        from ..config import apply_config
        from ..devicerun.api import device_run as run, to_diagnostics
        result = run(path, text=text, entry=args.get("entry"), device=device, inputs=args.get("inputs"),
                     interpreter=interpreter, timeout=conf.timeout_seconds, trusted=trusted, cancel_event=job)
        diags = apply_config(_to_diagnostics(to_diagnostics(result, text)), text, config)
        if joined is not None:
            from ..notebook import map_run
            map_run(joined, result)
        return result, diags

    result, diags = await server.with_progress(f"ShapeHint: device run ({device})", job,
                                               server.worker.run(job, body))
    server.set_run_diagnostics(uri, version, diags)
    server.protocol.notify("shapehint/deviceRunResult", {"uri": uri, "summary": result.get("summary"),
                                                         "error": result.get("error")})
    return result
