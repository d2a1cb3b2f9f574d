"""The garbage-collector policy: when the cyclic collector may run, and giving freed memory back.

Used by every analysis (`paused()` in analysis/engine.py) and by the language server's worker
(the rest). Standard library only, so any layer may import it.

A full collection walks every tracked object: with a 2,000-line module open that is ~150k
objects of results and summaries plus ~100k of imported modules, 100–300 ms on this machine —
longer than the whole edit → diagnostics budget. These rules keep it off the paths a user waits on:

- `settle()` after start-up: what the imports created lives for the whole session, so it is
  moved out of the collector's sight (`gc.freeze`) instead of being walked by every collection.
- `paused()` around every analysis (engine.analyze), and in the server also around the
  preparing of its result: an analysis creates almost no cyclic garbage until the result is
  compacted (its interpreter is a web of cycles: functions, their module globals, classes), and
  all it allocated stays in the youngest generation meanwhile. In the server `release()` then
  collects that generation only (cost in proportion to what the analysis allocated), freezes
  the survivors — a compacted result and the summaries have no cycles, so refcounting frees
  them when they are replaced, frozen or not — and hands the freed pages back. `check`'s worker
  processes release after each file too (project/pool.py): what a file's analysis leaves for the
  next ones (parsed imported modules, directory listings) is frozen instead of walked again by
  every later collection (1.5 of 45 CPU s on 20 transformers modeling files). Without the
  freeze, each edit's surviving records would make Python's own trigger run a full collection
  every edit or two, at any moment (in a hover, while a didChange is read). Elsewhere (CLI,
  questions) Python's own trigger collects the youngest generation at the first allocation
  after the pause: one pass over what the analysis allocated, instead of collections during it
  whose number and cost both grow with the module (they made a 16,000-line check ~40% slower,
  and its time grow faster than its size: bench/scale.py).
- `sweep()` once no analysis has landed for 10 s (worker.py), and every 64th release: whatever
  cyclic garbage the freezes caught (a request's objects that were in flight, say) is unfrozen
  and collected.

`paused()` nests and may be entered from several threads at once: the collector is off while
any caller is inside, and back on when the last one leaves (if it was on when the first came).
`trim()`: glibc's malloc keeps freed pages until asked — notably the Z3 contexts of an
analysis (~25 MB for a 500-line module), released when it ends; worker.py trims right then.
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager


def settle() -> None:
    gc.collect()
    gc.freeze()


_pause_lock = threading.Lock()
_pause_depth = 0
_enabled_before = False


@contextmanager
def paused():
    global _pause_depth, _enabled_before
    with _pause_lock:
        if _pause_depth == 0:
            _enabled_before = gc.isenabled()
            gc.disable()
        _pause_depth += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pause_depth -= 1
            if _pause_depth == 0 and _enabled_before:
                gc.enable()


_RELEASES_PER_SWEEP = 64  # a backstop for a user who never pauses that long


def release() -> None:
    global _releases
    _releases += 1
    if _releases % _RELEASES_PER_SWEEP == 0:
        sweep()
        return
    gc.collect(0)
    gc.freeze()
    trim()


_releases = 0


def sweep() -> None:
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    trim()


_LIBC = None


def trim() -> None:
    global _LIBC
    if _LIBC is None:
        try:
            import ctypes
            _LIBC = ctypes.CDLL("libc.so.6")
            _LIBC.malloc_trim  # noqa: B018  (glibc only)
        except (OSError, AttributeError):
            _LIBC = False
    if _LIBC:
        _LIBC.malloc_trim(0)
