"""The calls running now, per function: what bounds recursion.

A call of the function running on the same receiver is counted (`MAX_RECURSIVE_CALLS` per
outermost call); a re-entry under an `if` the analysis could not decide is followed only
`MAX_GUESSED_RECURSION` deep; a re-entry with nothing its running call lacked is cut at once.
This is working state: every call it records it forgets when the call returns.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Optional

from ..shapes.values import UnknownV


class CallStack:
    WORKING = ("active", "running_calls")

    def __init__(self):
        self.active: dict = {}  # (function, receiver) -> (its calls running, calls since the outermost began)
        # function's qualname -> [(store, undecided-arm depth, guessed, (args, kwargs, closure) or None)]
        self.running_calls: dict = {}

    def counts(self, key) -> tuple:
        """(calls of `key` running, calls since its outermost began)."""
        return self.active.get(key, (0, 0))

    def enter(self, key, running: int, made: int, f, store, guessed: bool, args, kwargs) -> list:
        """A call of the function `f` begins (`running`, `made`: `counts(key)`); returns what `leave` takes."""
        self.active[key] = (running + 1, made + 1 if running else 1)
        calls = self.running_calls.setdefault(f.qualname, [])
        calls.append((store, store.depth, guessed, (args, kwargs, f.closure)))
        return calls

    def leave(self, key, calls: list) -> None:
        calls.pop()
        running, made = self.active[key]
        self.active[key] = (running - 1, made if running > 1 else 0)

    @contextmanager
    def running(self, qualname: str, store):
        """Marks `qualname`'s own analysis as running on `store` (see `recursion_guessed`)."""
        stack = self.running_calls.setdefault(qualname, [])
        stack.append((store, store.depth, False, None))
        try:
            yield
        finally:
            stack.pop()

    def recursion_guessed(self, qualname: str, store) -> Optional[int]:
        """None when a call of `qualname` here does not re-enter it under an `if` it could not
        decide; else how many such re-entries would be running with it. A recursion the values
        decide (`DlaTree(levels - 1)` with levels known) is followed to its end; one the analysis
        only guesses at (levels unknown: both arms of `if levels == 1` run, each one deeper) would
        double at each level, so it is followed only frames.MAX_GUESSED_RECURSION deep."""
        stack = self.running_calls.get(qualname)
        if not stack or stack[-1][0] is not store or store.depth <= stack[-1][1]:
            return None
        return 1 + sum(1 for s, _, g, _ in stack if g and s is store)

    def repeats_running_call(self, f, args: list, kwargs: dict) -> bool:
        """Whether a call of the function `f` re-enters its innermost running call with nothing
        that call did not have: the same closure (another closure of the same `def` is another
        function: `and_masks(and_masks(a, b), c)`'s outer mask calling the inner one, which
        reads other masks), each argument the same value, or unknown. It could only redo that
        call's work on less, and at once reaches what following it would widen to: an unknown
        result (`stride_pool(x, axis) for x in tensor` with `tensor` unknown, which otherwise
        fans out at every level)."""
        stack = self.running_calls.get(f.qualname)
        if not stack or stack[-1][3] is None:
            return False
        before, before_kw, closure = stack[-1][3]
        return closure is f.closure and len(args) == len(before) and kwargs.keys() == before_kw.keys() and \
            all(a is b or isinstance(a, UnknownV) for a, b in zip(args, before)) and \
            all(kwargs[k] is before_kw[k] or isinstance(kwargs[k], UnknownV) for k in kwargs)
