"""Sequences of at most N items, each known (`ListV.upto`): a `zip` of a known-length sequence
with one whose length is unknown (`zip(channels, layers)`, `channels` a default of four widths,
`layers` a parameter), or a list such a loop grew. Its length is unknown, so it was a list of
unknown length whose item joined every position — and the i-th stage lost its own width.

A `for` over one runs pass by pass, item i in pass i, and may stop before any pass: pass k runs
as the arm of an undecided `if` (only when there is a k-th item) whose other arm stops the loop,
so what follows is the join of the states "stopped after k passes", k = 0..N — the stages
after a stop absent, later code never assuming them present. A list such arms fill
(`stages.append(...)` each pass) joins the same way (arm_lists.py): a prefix of another's
items, it is at most the longer's items (`upto`), which the next loop runs pass by pass again.
Containers no arm puts back (a `ModuleList` in an attribute, filled in place) are of unknown
length past the loop (grown_lists.widen), as past a loop of unknown count."""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.values import IntV, ListV, TupleV, UnknownV, Value
from ..shapes.expr import Expr
from . import arm_lists, grown_lists, loop_counts
from .objects import InstanceObj

MAX_PASSES = 32


def zipped(lists: list, elems: list, whole: Optional[tuple] = None, named=None) -> Value:
    """`zip(*args)` where some args' items are unknown (`lists[i]` None, `elems[i]` their
    item): at most as many tuples as the shortest known one, each known where its arg is.
    `whole`: that of a zip of one list of pieces (ops/pieces.py). `named(j, i)`: arg j's item
    i by name (`input_resolution[0]` of a parameter), or None: the i-th tuple exists only where
    every arg has an item i, so it holds that item, not any of them
    (`[r if r <= w else w for r, w in zip(input_resolution, window)]`)."""
    known = [len(l) for l in lists if l is not None]
    n = min(known) if known else 0
    upto = tuple(TupleV(tuple(l[i] if l is not None else _named(named, j, i) or e
                              for j, (l, e) in enumerate(zip(lists, elems)))) for i in range(n))
    if all(isinstance(v, UnknownV) for v in elems + [x for t in upto for x in t.items]):
        return UnknownV("zip")
    return ListV(None, TupleV(tuple(elems)), upto=upto if n <= MAX_PASSES else (), whole=whole)


def _named(named, j: int, i: int) -> Optional[Value]:
    return named(j, i) if named is not None else None


def named_item(v: Value, i: int, subscript) -> Optional[Value]:
    """Item i of a list of unknown length that names its items (a `List[int]` parameter:
    `subscript` names them `window_size[0]`), else None. Not an object known only by name: a
    dict among them zips its keys, which its `[0]` is not."""
    if isinstance(v, ListV) and v.items is None and v.name is not None:
        return subscript(v, IntV(Expr.const(i)))
    return None


def enumerated(v: Value, first: IntV) -> Optional[ListV]:
    """`enumerate(v)` of a sequence of at most N known items: the same, each with its index."""
    if not isinstance(v, ListV) or not v.upto or v.elem is None:
        return None
    return ListV(None, TupleV((first, v.elem)), upto=tuple(TupleV((IntV(Expr.const(i)), it))
                                                          for i, it in enumerate(v.upto)))


def runs(it: Value, st: ast.For) -> bool:
    """Whether a `for` over `it` runs pass by pass (a loop with an `else` does not: the `else`
    runs only past the last pass)."""
    return isinstance(it, ListV) and it.items is None and bool(it.upto) and not st.orelse


def run_loop(cf, st: ast.For, fr, it: ListV) -> None:
    """The loop (`cf`: the control-flow component): pass 0 as an undecided arm, the passes after
    it inside it."""
    saved, counting = getattr(fr, "iter_label", ""), loop_counts.enter(fr, st, None)
    reached = grown_lists.reachable(fr.env)
    try:
        _maybe_pass(cf, st, fr, list(it.upto), 0)
    finally:
        fr.iter_label = saved
        loop_counts.leave(fr, counting)
    # containers the passes grew that no arm put back (`self.blocks.append(...)`: the arms of
    # one object) hold every pass's items, as if all ran: of unknown length, as after a loop
    grown_lists.note_growth(reached, {}, cf.mutated, cf.join_values)


def _maybe_pass(cf, st, fr, items: list, k: int) -> None:
    """Either the loop stops before pass k or it runs pass k (and those after it)."""
    maybe_run(cf, fr, lambda: _pass(cf, st, fr, items, k))


def maybe_run(cf, fr, run, cond=None) -> None:
    """Either `run()` (under `cond`) or nothing: the join of the two, as an undecided `if`
    without `else` (ControlFlow._if); first_pass.py runs a loop's first pass so."""
    env0 = dict(fr.env)
    me = fr.self_obj if isinstance(fr.self_obj, InstanceObj) else None
    attrs0, log0 = (dict(me.attrs), len(cf.mutation_log)) if me is not None else (None, 0)
    lists = arm_lists.lists_before(env0)
    mark = cf.open_arm()
    flow, died = cf.in_arm(fr, (cond,), None, run)
    learned = cf.close_arm(mark)
    env1, attrs1, lists1 = cf.put_back(fr, env0, me, attrs0, log0, lists)
    dead = flow in ("return", "raise") or died
    cf.join_arms([(learned, not dead), (cf.close_arm(cf.open_arm()), True)])
    if attrs1 is not None:
        cf._join_attrs(me, None if dead else attrs1, dict(me.attrs), fr)
    arm_lists.join_lists(lists, lists1, not dead, True, cf.mutated, cf.join_values, prefixes=True)
    if not dead:
        joined = cf.join_envs(env1, env0, fr.facts)
        fr.env.clear()
        fr.env.update(joined)


def _pass(cf, st, fr, items: list, k: int) -> Optional[str]:
    fr.iter_label = f"iteration {k}"
    cf.assign(st.target, items[k], fr, st)
    flow = cf.exec_block(st.body, fr)
    if flow in ("return", "raise"):
        return flow
    if flow != "break" and k + 1 < len(items):
        _maybe_pass(cf, st, fr, items, k + 1)
    return None
