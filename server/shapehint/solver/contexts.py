"""Z3 contexts, reused: creating one costs milliseconds, more than most analyses. Each thread
keeps one, and a store or session borrows it only when no Python object references it any more —
so no other job can be using it, and an interrupt (cancellation) reaches only the job whose store
or session still holds the context. z3 is imported lazily, on the first borrow."""
from __future__ import annotations

import contextlib
import sys
import threading
from dataclasses import dataclass


@dataclass
class Limits:
    """A Z3 query's deterministic resource limit (a job's share: Session.rlimit) and a wall-clock
    guard well above the time the limit takes, so that answers do not depend on the machine's load
    (at 2 s, undecided queries stopped on the clock under load and infer's output varied between runs).
    Z3's optimizer (`FactStore.model`'s smallest values, `value_range`) gets OPTIMIZE_FACTOR times
    the limit, and BACKSTOP_FACTOR times the guard: with the guard alone, a slow minimisation
    stopped on the clock under load and a signature fell back to another model."""
    timeout_ms: int = 10000
    rlimit: int = 2_000_000

    def optimizer(self) -> dict:
        """The optimizer's parameters: its deterministic limit, the clock only against hangs."""
        out = {"timeout": self.timeout_ms * BACKSTOP_FACTOR}
        if self.rlimit:
            out["rlimit"] = self.rlimit * OPTIMIZE_FACTOR
        return out


# the optimizer's share, 10 M units at the default (~9 s of one quiet core, as the old 10 s clock):
# the slowest minimisation of the referee's files (tv_swin: 0.61 M units, 0.53 s; hf_clip 8 k,
# hf_bert 1 k) finishes well within it, and one that does not stops at the same point on any machine
OPTIMIZE_FACTOR = 5
BACKSTOP_FACTOR = 6  # the clock only against a hang: 60 s at the default


UNDECIDED_AT_FULL = 6


class Session:
    """The Z3 context shared by the stores of one analysis job, held from the first query to
    `release()`; interrupting it stops them all."""

    def __init__(self):
        self._ctx = None
        # (query, its symbols' bounds) -> whether the bounds alone refute it (FactStore._refuted_by_bounds):
        # per job, so a job's solver queries do not depend on the jobs before it
        self.by_bounds: dict = {}
        self.alike: dict = {}  # Z3's definite answers up to the symbols' names (alike.py)
        # queries Z3 left undecided at the full resource limit: past UNDECIDED_AT_FULL of them the
        # job's formulas are the nonlinear kind Z3 rarely decides (floor divisions of products), and
        # each further one would cost the full limit again (efficientloftr: 227 queries, 409 of 452
        # s). Counted, not timed, so that the answers do not depend on the machine's load.
        self.undecided = 0
        self.at_full = UNDECIDED_AT_FULL  # (fewer within `fewer_at_full`)

    def rlimit(self, full: int) -> int:
        """The resource limit of the job's next Z3 query: `full` until the job has had
        UNDECIDED_AT_FULL undecided queries (fewer_at_full), then a two-hundredth of it."""
        return full if not full or self.undecided < self.at_full else max(full // 200, 1)

    @contextlib.contextmanager
    def fewer_at_full(self, n: int):
        """Meanwhile, at most `n` more queries left undecided at the full limit (the job's own
        allowance still bounds them): a part of the job that asks again what the job asked
        elsewhere, at other sizes (a factory's sized context, sized_kwargs.py), where the first
        of its undecided formulas says the rest are the kind Z3 rarely decides. Counted, as the
        job's are."""
        saved = self.at_full
        self.at_full = min(saved, self.undecided + n)
        try:
            yield
        finally:
            self.at_full = saved

    def context(self):
        if self._ctx is None:
            self._ctx = borrow_context()
        return self._ctx

    def interrupt(self) -> None:
        ctx = self._ctx
        if ctx is not None:
            ctx.interrupt()

    def release(self) -> None:
        self._ctx = None


def check_within(z3, s, assumptions: list, rlimit: int):
    """Z3's verdict on the assumptions under `rlimit` (the job's share: `Session.rlimit`); an
    exception is `unknown`."""
    if rlimit and getattr(s, "_shapehint_rlimit", None) != rlimit:
        s.set(rlimit=rlimit)  # kept on the solver: a store rebuilds its solver when bounds change
        s._shapehint_rlimit = rlimit
    try:
        return s.check(*assumptions)
    except z3.Z3Exception:
        return z3.unknown


# ---- the per-thread pool of Z3 contexts ---------------------------------------------------

POOL_SIZE = 1  # a Z3 context holds ~20 MB: keep one per thread (the common case: analyses in a row)
MAX_BORROWS = 500  # a pooled context is retired after this many jobs (bounds what Z3 keeps)
_local = threading.local()


class _Pooled:
    __slots__ = ("ctx", "borrows")

    def __init__(self, ctx):
        self.ctx = ctx
        self.borrows = 0


def _free_refs() -> int:
    """References to a pooled context that nobody is using: its `_Pooled` slot, plus the ones
    `borrow_context` itself holds while it checks (measured on a stand-in, same code path)."""
    slot = _Pooled(object())
    return _refs(slot)


def _refs(slot: "_Pooled") -> int:
    ctx = slot.ctx
    return sys.getrefcount(ctx) - 1  # minus getrefcount's own argument


_FREE = _free_refs()


def borrow_context():
    """A Z3 context of this thread's pool that no Python object references (every Z3 object,
    solver or store that used it is gone, so it cannot be in use by another job), else a new one."""
    import z3
    pool = getattr(_local, "pool", None)
    if pool is None:
        pool = _local.pool = []
    for slot in pool:
        if _refs(slot) == _FREE:
            slot.borrows += 1
            if slot.borrows >= MAX_BORROWS:
                pool.remove(slot)
            return slot.ctx
    ctx = z3.Context()
    if len(pool) < POOL_SIZE:
        pool.append(_Pooled(ctx))
    return ctx
