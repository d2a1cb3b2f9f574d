"""Worker processes for `shapehint check --jobs N`.

Each worker is a process that receives one file at a time (path, text, configuration, budget)
and sends back its `analyse.analyse` result: nothing mutable is shared, so what a file gets does
not depend on which worker ran it or what ran before (the analysis's own caches are keyed by
content). The caller puts the results back in the files' order.

Memory per worker is bounded: a worker whose resident size passed `memory_mb` after a file
exits, and a fresh one takes its place (the analysis's caches and the allocator's high-water
mark do not carry over). A worker that dies in the middle of a file (killed for memory, a crash
in native code) costs that file only: it is reported as not analysed and the run goes on.

A plain pool of `multiprocessing.connection` pipes rather than `concurrent.futures`: there, a
worker that exits is a broken pool, and recycling by size is not possible.

Tests: tests/unit/test_check_repo.py (--jobs 1 and --jobs 2 agree; a recycled worker).
"""
from __future__ import annotations

import multiprocessing as mp
import os
from collections import deque
from multiprocessing.connection import wait
from typing import Callable

from .. import gc_policy

DEFAULT_MEMORY_MB = 400


def rss_mb() -> float:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _work(conn, memory_mb: float) -> None:
    from .analyse import analyse
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        index, path, text, config, budget_s = task
        try:
            out = analyse(path, text, config, budget_s)
        except Exception as exc:  # analyse does not raise; this is the last line of defence
            out = {"diagnostics": [], "failed": f"{type(exc).__name__}: {exc}", "seconds": 0.0}
        # the analysis's garbage collected now, what survives it (parsed modules kept for the
        # next files) frozen: the collector's later passes no longer walk it (gc_policy.py)
        gc_policy.release()
        rss = rss_mb()
        recycle = rss > memory_mb
        conn.send((index, out, recycle))
        if recycle:
            return


def _context():
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


class Pool:
    def __init__(self, jobs: int, memory_mb: float = DEFAULT_MEMORY_MB):
        self.jobs = max(1, jobs)
        self.memory_mb = memory_mb
        self.started = 0  # worker processes started (recycled ones included)

    def run(self, tasks: list, on_result: Callable[[int, dict], None]) -> None:
        """Analyse every task (index, path, text, config, budget_s); `on_result(index, result)`
        is called in the caller's process as each finishes, in completion order."""
        ctx = _context()
        pending = deque(tasks)
        workers: dict = {}  # connection -> [process, the task it is on]

        def start() -> None:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_work, args=(child, self.memory_mb), daemon=True)
            proc.start()
            child.close()
            self.started += 1
            workers[parent] = [proc, None]
            feed(parent)

        def feed(conn) -> None:
            if pending:
                task = pending.popleft()
                workers[conn][1] = task
                conn.send(task)
            else:
                retire(conn, goodbye=True)

        def retire(conn, goodbye: bool) -> None:
            proc, _ = workers.pop(conn)
            if goodbye:
                try:
                    conn.send(None)
                except OSError:
                    pass
            conn.close()
            proc.join(timeout=5)

        try:
            for _ in range(min(self.jobs, len(pending))):
                start()
            while workers:
                for conn in wait(list(workers)):
                    try:
                        index, out, recycle = conn.recv()
                    except (EOFError, OSError):  # the worker died in the middle of a file
                        proc, task = workers[conn]
                        retire(conn, goodbye=False)
                        on_result(task[0], {"diagnostics": [], "seconds": 0.0,
                                            "failed": f"worker process exited (status {proc.exitcode})"})
                        if pending:
                            start()
                        continue
                    workers[conn][1] = None
                    on_result(index, out)
                    if recycle:
                        retire(conn, goodbye=False)
                        if pending:
                            start()
                    else:
                        feed(conn)
        finally:
            for conn in list(workers):
                workers[conn][0].terminate()
                retire(conn, goodbye=False)
