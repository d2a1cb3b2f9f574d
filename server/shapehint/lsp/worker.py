"""Background work for the server: its own executor, cancellable jobs, debounce, versions.

Terms
  Job       one unit of background work. It is passed to the analysis as `cancel`: the engine
            polls `job.is_set()` and registers interrupt callbacks with `job.on_cancel(fn)`
            (the solver registers `ctx.interrupt` of the job's own Z3 context), so cancelling a
            job really stops Z3 instead of abandoning a thread.
  Snapshot  the immutable outcome of analysing one version of one document; features answer
            hover, inlay hints and code actions from the latest snapshot (warm, no re-solving).

Invariants
  - Solver/analysis work never runs on the event loop and never on pygls's thread pool (that
    pool also reads stdin); it runs on `Worker.executor`.
  - Every method except the job bodies runs on the event loop thread.
  - A document edit cancels the job analysing an older version; a result whose version is no
    longer the document's is dropped, never stored or published (`stats["dropped"]`).
  - Edits are debounced: the analysis starts `debounce_s` after the last edit, unless a request
    needs the current version now (`current`).
  - A snapshot is handed to the event loop (published) as soon as its diagnostics exist; the
    analysis thread then runs `prepare` (records, compaction) before it takes the next job, so
    a request that comes in between builds the records itself (under the result's lock).
Tests: tests/lsp/test_cancel.py, tests/lsp/test_diagnostics.py (stale results).
"""
from __future__ import annotations

import asyncio
import logging
import threading
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .. import gc_policy

log = logging.getLogger(__name__)


class Cancelled(Exception):
    """The job was cancelled before or while it ran."""


class Job:
    """A cancel event plus interrupt callbacks; `is_set()` makes it usable as `cancel=`."""

    def __init__(self, label: str, uri: Optional[str] = None, version: Optional[int] = None,
                 request_id: Any = None):
        self.label = label
        self.uri = uri
        self.version = version
        self.request_id = request_id
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list = []
        self.future: Optional[Future] = None

    def is_set(self) -> bool:
        return self._event.is_set()

    cancelled = property(is_set)

    def wait(self, timeout: Optional[float] = None) -> bool:
        return self._event.wait(timeout)

    def on_cancel(self, fn: Callable[[], Any]) -> None:
        """Call `fn` when the job is cancelled (at once when it already is)."""
        with self._lock:
            self._callbacks.append(fn)
            if not self._event.is_set():
                return
        _safe(fn)

    def cancel(self) -> None:
        with self._lock:
            first = not self._event.is_set()
            self._event.set()
            callbacks = list(self._callbacks)
        if first or callbacks:
            for fn in callbacks:
                _safe(fn)

    def interrupt_again(self) -> None:
        """Repeat the interrupts: Z3 forgets an interrupt that lands just before `check()`
        starts, so the worker repeats them until a cancelled job has really returned."""
        if self._event.is_set():
            for fn in list(self._callbacks):
                _safe(fn)

    def check(self) -> None:
        if self._event.is_set():
            raise Cancelled(self.label)

    def __repr__(self) -> str:
        return f"Job({self.label!r}, uri={self.uri!r}, version={self.version!r})"


def _call_soon(loop, fn, *args) -> None:
    try:
        loop.call_soon_threadsafe(fn, *args)
    except RuntimeError:  # the loop closed (server shutting down): nothing left to publish
        pass


def _safe(fn) -> None:
    try:
        fn()
    except Exception:  # an interrupt callback must never break cancellation of the others
        log.exception("cancel callback failed")


@dataclass(frozen=True)
class Snapshot:
    uri: str
    version: Optional[int]
    text: str
    result: Any  # AnalysisResult
    diagnostics: tuple  # after config filtering (severity overrides, suppressions)
    config: Any = None
    session: Any = None  # AnalysisSession: the live analysis the questions ask (None: no analysis)


@dataclass
class _Pending:
    uri: str
    version: Optional[int]
    job: Job
    body: Callable[[Job], Snapshot]
    waiter: asyncio.Future
    timer: Optional[asyncio.TimerHandle] = None
    started: bool = False
    finished: bool = False


@dataclass
class Hooks:
    """Test hooks (enabled by SHAPEHINT_TEST_HOOKS=1): hold finished analyses before they land."""

    hold: Optional[threading.Event] = None
    running: Counter = field(default_factory=Counter)


# The analysis thread runs pure Python for up to seconds; with the interpreter's default 5 ms
# GIL switch interval every message the stdin reader and the event loop handle meanwhile waits
# up to 5 ms per hand-over (tens of ms for one didChange, one hover). 1 ms keeps them responsive.
SWITCH_INTERVAL_S = 0.001
IDLE_SWEEP_S = 10.0  # no analysis landed for this long: collect everything (gc_policy.py); a pause of
# ~0.1 s per 100k objects, so not while the user is likely to be typing or hovering


class Worker:
    def __init__(self, max_workers: int = 2, debounce_s: float = 0.25):
        # Document analyses run one at a time on their own thread (the engine's per-analysis
        # state is not meant to be shared; a newer version cancels the older job anyway);
        # other solver jobs (commands) run on `executor`.
        self.analysis_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shapehint-analysis")
        self.executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="shapehint-worker")
        self.debounce_s = debounce_s
        self.snapshots: dict = {}
        self.stats: Counter = Counter()
        self.hooks = Hooks()
        self._pending: dict = {}
        self._requests: dict = {}
        self._early_cancels: list = []
        self._warm: Optional[Future] = None
        self._sweep: Optional[asyncio.TimerHandle] = None
        self.on_publish: Callable[[Snapshot], None] = lambda snap: None
        # runs on the analysis thread right after a snapshot is handed over for publishing
        self.prepare: Callable[[Snapshot], None] = lambda snap: None
        self.on_busy: Callable[[bool], None] = lambda busy: None
        self.current_version: Callable[[str], Optional[int]] = lambda uri: None

    # ---- generic jobs -----------------------------------------------------
    def submit(self, job: Job, fn: Callable, *args, executor: Optional[ThreadPoolExecutor] = None) -> Future:
        def body():
            job.check()
            self.hooks.running[job.label] += 1
            try:
                return fn(job, *args)
            finally:
                self.hooks.running[job.label] -= 1
        fut = (executor or self.executor).submit(body)
        job.future = fut
        return fut

    def _stop(self, job: Job) -> None:
        """Cancel `job` and keep interrupting it until its body has returned."""
        job.cancel()
        fut = getattr(job, "future", None)
        if fut is None or fut.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return

        def again():
            if not fut.done():
                job.interrupt_again()
                loop.call_later(0.05, again)
        loop.call_later(0.05, again)

    def track(self, job: Job) -> Job:
        """Make `$/cancelRequest` for the job's request id reach the job."""
        if job.request_id is not None:
            self._requests[job.request_id] = job
            if job.request_id in self._early_cancels:
                job.cancel()
        return job

    async def run(self, job: Job, fn: Callable, *args, executor: Optional[ThreadPoolExecutor] = None):
        """Run `fn(job, *args)` on the executor (or `executor`, e.g. the analysis thread for
        work that reads a snapshot's solver state); cancelling the awaiting task cancels the job."""
        self.track(job)
        try:
            return await asyncio.wrap_future(self.submit(job, fn, *args, executor=executor))
        except asyncio.CancelledError:
            self._stop(job)
            raise
        finally:
            if job.request_id is not None:
                self._requests.pop(job.request_id, None)

    def cancel_request(self, request_id) -> bool:
        """$/cancelRequest: stop the job serving that request (interrupting its Z3 context)."""
        job = self._requests.pop(request_id, None)
        log.info("cancel request %r -> %r", request_id, job)
        if job is None:
            self._early_cancels.append(request_id)  # the job may not exist yet
            del self._early_cancels[:-64]
            return False
        self._stop(job)
        self.stats["cancelled_requests"] += 1
        return True

    # ---- document analyses ------------------------------------------------
    def schedule(self, uri: str, version: Optional[int], body: Callable[[Job], Snapshot],
                 delay: Optional[float] = None) -> None:
        """Analyse `version` of `uri` after the debounce delay, replacing older work."""
        self.forget(uri)
        loop = asyncio.get_running_loop()
        entry = _Pending(uri, version, Job("analysis", uri, version), body, loop.create_future())
        self._pending[uri] = entry
        delay = self.debounce_s if delay is None else delay
        if delay > 0:
            entry.timer = loop.call_later(delay, self._start, entry)
        else:
            self._start(entry)

    def forget(self, uri: str) -> None:
        """Cancel pending or running analysis of `uri` (the result, if any, is dropped)."""
        old = self._pending.pop(uri, None)
        if old is None:
            return
        if old.timer is not None:
            old.timer.cancel()
        self._stop(old.job)
        if not old.started:
            self.stats["debounced"] += 1
        if not old.waiter.done():
            old.waiter.set_result(None)

    def close(self, uri: str) -> None:
        self.forget(uri)
        self.snapshots.pop(uri, None)

    def _start(self, entry: _Pending) -> None:
        if entry.started or self._pending.get(entry.uri) is not entry:
            return
        entry.started = True
        if entry.timer is not None:
            entry.timer.cancel()
        loop = asyncio.get_running_loop()
        self.stats["analyses"] += 1
        self.on_busy(True)
        fut = self.submit(entry.job, self._analyse, entry, loop, executor=self.analysis_executor)
        fut.add_done_callback(lambda f: _call_soon(loop, self._failed, entry, f))

    def warm_up(self, fn: Callable[[], Any]) -> None:
        """Run `fn` (imports, registries) once before any analysis starts: lazy imports racing
        on two worker threads can see a half-initialised module (an operator registry)."""
        self._warm = self.analysis_executor.submit(fn)

    def _analyse(self, job: Job, entry: _Pending, loop) -> Snapshot:
        if self._warm is not None:
            try:
                self._warm.result()
            except Exception:
                log.exception("warm-up failed")
        job.check()
        with gc_policy.paused():  # see gc_policy.py: no collection before the diagnostics are out
            snap = entry.body(job)
            gc_policy.trim()  # the analysis's Z3 contexts are gone: give their pages back now (~ms)
            hold = self.hooks.hold
            if hold is not None:  # test hook: let the document move on before this result lands
                hold.wait(60)
            # publish now (waiting for it: this thread would hold the GIL meanwhile); then, still
            # on this thread and so before the next analysis starts, build what requests read
            # (records, lenses) and compact the result
            published = threading.Event()
            _call_soon(loop, self._finish, entry, snap, published)
            published.wait(1.0)
            if not job.is_set():
                try:
                    self.prepare(snap)
                except Exception:
                    log.exception("preparing %s failed", entry.uri)
        gc_policy.release()
        return snap

    def _failed(self, entry: _Pending, fut: Future) -> None:
        """The job's future is done: drop the job → future → callback → job cycle (frozen by
        gc_policy.release, it would keep the snapshot until the next sweep); handle a job that ended
        without a snapshot (cancelled, or it raised)."""
        entry.job.future = None
        if entry.finished:
            return
        if not fut.cancelled():
            exc = fut.exception()
            if exc is not None and not isinstance(exc, Cancelled) and not entry.job.is_set():
                log.error("analysis of %s failed", entry.uri, exc_info=exc)
                self.stats["failed"] += 1
        self._finish(entry, None)

    def _finish(self, entry: _Pending, snap: Optional[Snapshot], done: Optional[threading.Event] = None) -> None:
        try:
            self._land(entry, snap)
        finally:
            if done is not None:
                done.set()

    def _land(self, entry: _Pending, snap: Optional[Snapshot]) -> None:
        if entry.finished:
            return
        entry.finished = True
        if self._pending.get(entry.uri) is entry:
            del self._pending[entry.uri]
        if not self._pending:
            self.on_busy(False)
        stale = entry.job.is_set() or self.current_version(entry.uri) != entry.version
        if snap is None or stale:
            self.stats["dropped"] += 1
            if not entry.waiter.done():
                entry.waiter.set_result(None)
            return
        self.snapshots[entry.uri] = snap
        self.stats["published"] += 1
        self._sweep_when_idle()
        if not entry.waiter.done():
            entry.waiter.set_result(snap)
        try:
            self.on_publish(snap)
        except Exception:
            log.exception("publishing %s failed", entry.uri)

    def _sweep_when_idle(self) -> None:
        """A full garbage collection (gc_policy.sweep) once no analysis has landed for a while."""
        loop = asyncio.get_running_loop()
        if self._sweep is not None:
            self._sweep.cancel()

        def sweep():
            self._sweep = None
            if self._pending:
                self._sweep_when_idle()
            else:
                self.analysis_executor.submit(gc_policy.sweep)
        self._sweep = loop.call_later(IDLE_SWEEP_S, sweep)

    async def current(self, uri: str, version: Optional[int]) -> Optional[Snapshot]:
        """The snapshot of `version` of `uri`, starting a debounced analysis now if needed.

        When the awaited analysis is replaced (settings changed, say), the replacement is
        awaited in turn; falls back to the latest snapshot when `version` was superseded.
        """
        for _ in range(16):
            snap = self.snapshots.get(uri)
            if snap is not None and snap.version == version:
                return snap
            entry = self._pending.get(uri)
            if entry is None or entry.version != version:
                break
            self._start(entry)
            await asyncio.shield(entry.waiter)
        return self.snapshots.get(uri)

    def pending(self, uri: str) -> bool:
        return uri in self._pending

    def shutdown(self) -> None:
        if self._sweep is not None:
            self._sweep.cancel()
        for uri in list(self._pending):
            self.forget(uri)
        for job in list(self._requests.values()):
            job.cancel()
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.analysis_executor.shutdown(wait=False, cancel_futures=True)
