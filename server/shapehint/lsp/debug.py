"""Test hooks, enabled only when the environment has SHAPEHINT_TEST_HOOKS=1.

  shapehint.debug.slowQuery {rlimit}   a deliberately hard nonlinear Z3 query (x³ + y³ = z³)
                                       in its own context; $/cancelRequest interrupts it
  shapehint.debug.hold {on}            hold finished analyses before they land (stale tests)
  shapehint.debug.stats {}             worker counters, running jobs, last slow query
Tests: tests/lsp/test_cancel.py, tests/lsp/test_diagnostics.py.
"""
from __future__ import annotations

import os
import threading

from .commands import command
from .worker import Job

ENABLED = os.environ.get("SHAPEHINT_TEST_HOOKS") == "1"
STATE: dict = {"last_slow_query": None}


def slow_query(job: Job, rlimit: int) -> dict:
    import z3
    ctx = z3.Context()
    job.on_cancel(ctx.interrupt)  # the real cancellation path: interrupt this job's context
    x, y, z = (z3.Int(n, ctx) for n in "xyz")
    s = z3.SolverFor("QF_NIA", ctx=ctx)
    s.set("rlimit", int(rlimit))
    s.add(x > 1, y > 1, z > 1, x * x * x + y * y * y == z * z * z)
    STATE["last_slow_query"] = {"state": "solving"}
    r = s.check()  # an interrupt landing just before this is repeated by the worker
    out = {"state": "done", "result": str(r), "reason": s.reason_unknown() if r == z3.unknown else "",
           "interrupted": job.is_set()}
    STATE["last_slow_query"] = out
    return out


if ENABLED:
    @command("shapehint.debug.slowQuery")
    async def _slow_query(server, args: dict):
        job = server.worker.track(Job("slowQuery", request_id=server.protocol.msg_id))
        rlimit = int(args.get("rlimit", 4_000_000_000))
        return await server.with_progress("Solving (test query)", job,
                                          server.worker.run(job, slow_query, rlimit))

    @command("shapehint.debug.hold")
    async def _hold(server, args: dict):
        if args.get("on"):
            server.worker.hooks.hold = threading.Event()
        elif server.worker.hooks.hold is not None:
            server.worker.hooks.hold.set()
            server.worker.hooks.hold = None
        return True

    @command("shapehint.debug.stats")
    async def _stats(server, args: dict):
        return {"stats": dict(server.worker.stats), "running": dict(server.worker.hooks.running),
                "last_slow_query": STATE["last_slow_query"],
                "commands": sorted(server.protocol.server_capabilities.execute_command_provider.commands),
                "snapshots": {u: s.version for u, s in server.worker.snapshots.items()}}


def commands() -> list:
    return ["shapehint.debug.slowQuery", "shapehint.debug.hold", "shapehint.debug.stats"] if ENABLED else []
