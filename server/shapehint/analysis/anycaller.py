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
- ran in the same situation but for the root and the facts (`_situation`; or one that differs
  only in ways that cannot change a quiet call, `_within`), with nothing it can
  read written since, nor any module code run (callmemo._unchanged_since; once something module
  code made was written, what the callee can read is its arguments' reach and its own globals',
  callee_world.py).

A repeat answered here is charged the steps the call it stands for took (`_Entry.steps`), as if
it had run: these helpers run inside imported calls that end at their share of steps
(costs.py), and a repeat that cost nothing would let such a call go further than it did, with
other effects. So the answers are those of running every call; only the time differs.

So nothing of the caller but those frame flags reached it, and running it again would compute
the same value with the same (absent) effects. An int argument is not a constant here: the
analysed function's own default value is recognised by identity where an operation fails
(`Calls._on_a_default`).
"""
from __future__ import annotations

from typing import Optional

from ..shapes.values import BoolV, DtypeV, EllipsisV, IntV, NoneV, StrV, TupleV, UnknownV, Value
from .callee_world import World
from .callmemo import _Entry, _add, _plain, _reach, _slots, _unchanged_since, alike
from .frames import Budget
from .objects import FuncObj
from . import sized_kwargs

ANY_CALLER_SKIPS = ("store",)
_CONSTANTS = frozenset((StrV, NoneV, EllipsisV, DtypeV))  # exactly these (a default's string is not one)


class AnyCallerMemo:
    """One analysis's calls remembered for any caller (its `CallMemo` holds one)."""

    def __init__(self):
        self._calls: dict = {}  # id(FuncObj) -> (FuncObj, [_Entry])
        self.world = World()  # what each callee reaches from its globals (callee_world.py)
        self.hits = 0
        self.world_hits = 0  # of the hits, those only the callee's world allowed (a debug counter)
        self.charged = 0  # steps charged for hits: not run (for profiles)

    def lookup(self, it, f: FuncObj, args: list, kwargs: dict, fr) -> Optional[_Entry]:
        held = self._calls.get(id(f))
        if held is None:
            return None
        situation = _situation(fr, kwargs)
        kwargs = _plain(kwargs)
        for e in held[1]:
            if _within(e.situation, situation) and len(e.args) == len(args) and alike(e.args, args) \
                    and alike(e.kwargs, kwargs) and self._unchanged(it, f, e, (e.args, e.kwargs, args, kwargs)):
                self.hits += 1
                _charge(it, e.steps)
                self.charged += e.steps
                return e
        return None

    def _unchanged(self, it, f: FuncObj, e: _Entry, roots) -> bool:
        """Nothing `f` can read was written since `e` (callmemo._unchanged_since), or, where that
        refuses for a write to something module code made or for a rank learned, nothing
        reachable from the arguments or from `f`'s globals was written, nor, where a tensor of
        unknown rank is among the latter, any rank learned (callee_world.py)."""
        if _unchanged_since(it, e, roots):
            return True
        if it.module_runs != e.module_runs:
            return False
        # (the writes before `e.checked` were found to touch nothing `f` reached then, and what it
        # reaches now it could reach only through a write since, which is among those scanned)
        written = it.mutation_log[e.checked:]
        seen = _reach(roots) if written else set()
        world = self.world.reach(it, f) if seen is not None else None
        if world is None or world[1] and it.env.rank_learning() != e.stars:
            return False
        if any(id(o) in seen or id(o) in world[0] for o in written):
            return False
        e.checked = len(it.mutation_log)
        self.world_hits += 1
        return True

    @staticmethod
    def mark(it, f: FuncObj, args: list, kwargs: dict, fr) -> Optional[tuple]:
        """Where the journal and the caller's facts stand before a call that may be remembered
        (None: it may not be: not another module's function, or an argument not a constant)."""
        if not f.module_path or f.module_path == it.path:
            return None
        if not all(_constant(a) for a in args) or not all(_constant(v) for v in kwargs.values()):
            return None
        store = fr.facts
        return it.journal.mark(ANY_CALLER_SKIPS), store.reads, len(store.facts), store.facts[-1:], it.steps, \
            _exempt(it)

    def remember(self, it, f: FuncObj, args: list, kwargs: dict, fr, mark: Optional[tuple],
                 result: Value, dead: bool, assumes_default: bool) -> None:
        if mark is None or not _constant(result, results=True):
            return
        journal, reads, n, last, steps, exempt = mark
        store = fr.facts
        if not it.journal.only_since(journal, ANY_CALLER_SKIPS) or store.reads != reads \
                or len(store.facts) != n or store.facts[-1:] != last or _exempt(it) != exempt:
            return  # (steps run outside the caps of imported calls, costs.outside_caps, are not charged alike)
        e = _Entry(it, args, _plain(kwargs), _situation(fr, kwargs), store)
        e.result, e.dead, e.assumes_default, e.steps = _slots(result, args), dead, assumes_default, it.steps - steps
        e.checked = e.log_end
        _add(self._calls, f, e)


def _charge(it, steps: int) -> None:
    """The steps of the call a hit stands for (the module's docstring): where they pass the
    running share, the run would have stopped one step past it, as `Interp.eval` does."""
    if it.steps + steps > it.step_limit:
        it.steps = max(it.steps, it.step_limit + 1)
        raise Budget()
    it.steps += steps


def _exempt(it) -> int:
    costs = getattr(it.imports, "costs", None)
    return costs.exempt if costs is not None else 0


def _within(remembered: tuple, situation: tuple) -> bool:
    """Whether a call remembered in situation `remembered` stands for one in `situation` (both
    `_situation`s): the same but for

    - the call depth, which may be less: depth changes what a callee does only where a call
      inside it reaches `Interp.max_depth` (calls._call_here), a cut-off the remembered call,
      being quiet, never met; a shallower call meets none either (a deeper one might);
    - a path of the caller having returned, which only stops rank guards from teaching
      (ranks.learn_guarded_ranks): a quiet call learned no rank, so neither would one that may
      learn less;
    - the caller's file, when both calls come with call sites: the callee (another module's
      code) runs in its own file whatever the caller's, and the caller's matters only to a
      report made without a call site to place it (reporter.report), which a quiet call with
      one never made."""
    depth, after_return, sites, foreign, rest = remembered[0], remembered[1], remembered[2], remembered[3], \
        remembered[4:]
    return rest == situation[4:] and depth >= situation[0] and after_return <= situation[1] \
        and (foreign == situation[3] or sites and situation[2])


def _situation(fr, kwargs: dict) -> tuple:
    """The calling situation (Calls._situation) without what names the caller: its root and its
    facts, which a call remembered here did not read. The first four parts `_within` compares
    loosely; the others must be equal."""
    return (fr.depth, fr.after_return or bool(fr.returns), bool(fr.call_sites), fr.foreign,
            fr.record, fr.assumes_default, fr.qualname == "<module>", sized_kwargs.of_kwargs(kwargs), fr.caught)


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
