"""Test hooks, enabled only when the environment has SHAPEHINT_TEST_HOOKS=1.

  shapehint.debug.slowQuery {rlimit}   a deliberately hard nonlinear query (x³ + y³ = z³) through
                                       the solver layer, in its own Z3 context; $/cancelRequest
                                       interrupts it
  shapehint.debug.hold {on}            hold finished analyses before they land (stale tests)
  shapehint.debug.stats {}             worker counters, running jobs, last slow query, what each
                                       document's last analysis re-analysed
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
    """x³ + y³ = z³ over integers ≥ 2: Z3 cannot decide it, so it works until its rlimit runs
    out — minutes for a huge one — unless the job is cancelled (the solver's own context,
    interrupted through `job.on_cancel`)."""
    from ..shapes.expr import Expr
    from ..shapes.shape import eq
    from ..solver.facts import FactStore, Limits
    store = FactStore(Limits(timeout_ms=600_000, rlimit=int(rlimit)))
    job.on_cancel(store.interrupt)
    x, y, z = (Expr.sym(n) for n in "xyz")
    for n in "xyz":
        store.declare(n, lo=2)
    STATE["last_slow_query"] = {"state": "solving"}
    sat, _ = store.possible(eq(x * x * x + y * y * y, z * z * z))
    if job.is_set():
        sat = None  # an interrupted query has no answer (Z3 may even say sat after a cancel)
    out = {"state": "done", "result": {True: "sat", False: "unsat", None: "unknown"}[sat],
           "interrupted": job.is_set(), "queries": store.queries}
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
        from .workspace_diags import STATS as workspace
        return {"stats": dict(server.worker.stats), "running": dict(server.worker.hooks.running),
                "workspace_diagnostics": dict(workspace),
                "last_slow_query": STATE["last_slow_query"],
                "commands": sorted(server.protocol.server_capabilities.execute_command_provider.commands),
                "snapshots": {u: s.version for u, s in server.worker.snapshots.items()},
                # the functions the last analysis of each document re-analysed (the others were
                # restored from warm summaries): what proves re-analysis incremental
                "reanalysed": {u: (getattr(s.result, "stats", None) or {}).get("reanalysed")
                               for u, s in server.worker.snapshots.items()},
                "limits": {u: [getattr(s.config, "timeout_ms", None), getattr(s.config, "rlimit", None)]
                           for u, s in server.worker.snapshots.items()}}


def commands() -> list:
    return ["shapehint.debug.slowQuery", "shapehint.debug.hold", "shapehint.debug.stats"] if ENABLED else []
