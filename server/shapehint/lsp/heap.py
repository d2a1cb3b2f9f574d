"""The server's heap: when the cyclic garbage collector may run, and giving freed memory back.

A full collection walks every tracked object: with a 2,000-line module open that is ~150k
objects of results and summaries plus ~100k of imported modules, 100–300 ms on this machine —
longer than the whole edit → diagnostics budget. Two rules keep it off the paths a user waits on:

- `settle()` after start-up: what the imports created lives for the whole session, so it is
  moved out of the collector's sight (`gc.freeze`) instead of being walked by every collection.
- `paused()` around a document analysis and the preparing of its result: an analysis creates
  almost no cyclic garbage until the result is compacted (its interpreter is a web of cycles:
  functions, their module globals, classes), and all it allocated stays in the youngest
  generation meanwhile. `release()` then collects that generation only (cost in proportion to
  what the analysis allocated), freezes the survivors — a compacted result and the summaries
  have no cycles, so refcounting frees them when they are replaced, frozen or not — and hands
  the freed pages back. Without the freeze, each edit's surviving records would make Python's
  own trigger run a full collection every edit or two, at any moment (in a hover, while a
  didChange is read).
- `sweep()` once no analysis has landed for 10 s (worker.py), and every 64th release: whatever
  cyclic garbage the freezes caught (a request's objects that were in flight, say) is unfrozen
  and collected.

Only the analysis thread calls `paused()`, so the enable/disable pairs never interleave.
`trim()`: glibc's malloc keeps freed pages until asked — notably the Z3 contexts of an
analysis (~25 MB for a 500-line module), released when it ends; worker.py trims right then.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


def settle() -> None:
    gc.collect()
    gc.freeze()


@contextmanager
def paused():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
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
