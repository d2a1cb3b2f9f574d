"""Calls the call memo answers for any caller (issue 23): within one analysis of a file, every
function's own analysis and every calling context is a root of its own (`Frame.root`), and the
memo (callmemo.py) answers a repeat only under the same root and fact store. Helpers of other
modules that take no argument but constants (`is_torch_available()`-like checks, called at
hundreds of places of a file) then ran at each place, never answered.

A call into another module's code whose arguments are constants (None, strings, `True`) is
answered by an earlier alike one from any root when that one

- was quiet with no effect but fact stores made (`ANY_CALLER_SKIPS`): no branch record, no
  caller noted, no operation given up — the kinds a repeat under the same root may skip but
  which name their root;
- returned a constant (an int, a string, an unknown, a tuple of them);
- asked the caller's facts nothing (`FactStore.reads`) and left them as they were;
- ran in the same situation but for the root and the facts (`_situation`), with nothing it can
  read written since, nor any module code run (callmemo._unchanged_since).

So nothing of the caller but those frame flags reached it, and running it again would compute
the same value with the same (absent) effects. An int argument is not a constant here: the
analysed function's own default value is recognised by identity where an operation fails
(`Calls._on_a_default`).
"""
from __future__ import annotations

from typing import Optional

from ..shapes.values import BoolV, DtypeV, EllipsisV, IntV, NoneV, StrV, TupleV, UnknownV, Value
from .callmemo import _Entry, _add, _plain, _slots, _unchanged_since, alike
from .objects import FuncObj, OpenKwargs

ANY_CALLER_SKIPS = ("store",)
_CONSTANTS = frozenset((StrV, NoneV, EllipsisV, DtypeV))  # exactly these (a default's string is not one)


class AnyCallerMemo:
    """One analysis's calls remembered for any caller (its `CallMemo` holds one)."""

    def __init__(self):
        self._calls: dict = {}  # id(FuncObj) -> (FuncObj, [_Entry])
        self.hits = 0

    def lookup(self, it, f: FuncObj, args: list, kwargs: dict, fr) -> Optional[_Entry]:
        held = self._calls.get(id(f))
        if held is None:
            return None
        situation = _situation(fr, kwargs)
        kwargs = _plain(kwargs)
        for e in held[1]:
            if e.situation == situation and len(e.args) == len(args) and alike(e.args, args) \
                    and alike(e.kwargs, kwargs) and _unchanged_since(it, e, (e.args, e.kwargs, args, kwargs)):
                self.hits += 1
                return e
        return None

    @staticmethod
    def mark(it, f: FuncObj, args: list, kwargs: dict, fr) -> Optional[tuple]:
        """Where the journal and the caller's facts stand before a call that may be remembered
        (None: it may not be: not another module's function, or an argument not a constant)."""
        if not f.module_path or f.module_path == it.path:
            return None
        if not all(_constant(a) for a in args) or not all(_constant(v) for v in kwargs.values()):
            return None
        store = fr.facts
        return it.journal.mark(ANY_CALLER_SKIPS), store.reads, len(store.facts), store.facts[-1:]

    def remember(self, it, f: FuncObj, args: list, kwargs: dict, fr, mark: Optional[tuple],
                 result: Value, dead: bool, assumes_default: bool) -> None:
        if mark is None or not _constant(result, results=True):
            return
        journal, reads, n, last = mark
        store = fr.facts
        if not it.journal.only_since(journal, ANY_CALLER_SKIPS) or store.reads != reads \
                or len(store.facts) != n or store.facts[-1:] != last:
            return
        e = _Entry(it, args, _plain(kwargs), _situation(fr, kwargs), store)
        e.result, e.dead, e.assumes_default = _slots(result, args), dead, assumes_default
        _add(self._calls, f, e)


def _situation(fr, kwargs: dict) -> tuple:
    """The calling situation (Calls._situation) without what names the caller: its root and its
    facts, which a call remembered here did not read."""
    return (fr.depth, fr.foreign, fr.record, fr.assumes_default, fr.after_return or bool(fr.returns),
            fr.qualname == "<module>", type(kwargs) is OpenKwargs, fr.caught)


def _constant(v, results: bool = False) -> bool:
    """A value that is the same whoever made it: no symbol, no object (an argument: no int
    either, see the module's docstring)."""
    t = type(v)
    if t in _CONSTANTS or results and t is UnknownV:
        return True
    if t is BoolV:
        return v.pred is not None and (v.pred.is_true or v.pred.is_false) and v.implied is None
    if results and t is IntV:
        return v.expr.is_const
    if results and t is TupleV:
        return all(_constant(i, results) for i in v.items)
    return False
