"""Stages a constructor builds one per pass of a loop of unknown count, each with its own widths
and stride (`for i in range(config.num_stages): self.stages.append(Stage(prev, widths[i],
stride=2 if i > 0 else 1))`), and a `for` over them that follows them pass by pass (issue 27).

Run to a fixpoint, the constructor's passes joined their widths (`widths[i]` of an unknown `i`)
and strides, so the container's element stood for any stage, and every shape inside or after the
model's stage loop was unknown. Where the body reads a sequence by the loop's name, the first
`MAX_STAGES` passes run one by one, pass k (with `i` its own number) as the arm of an undecided
`if` (the range holds a k-th number, as bounded_loops.py runs each pass), the passes after them
inside the last arm as a loop of unknown count. A layer container of known children the passes
appended one layer each to keeps, past the loop, its element (any stage) and those first
children (`ModuleV.prefix`; those past `ModuleV.sure` present only where enough passes ran).
A `for` over it runs child k in pass k, each pass an undecided arm whose other arm stops the
loop, then the later children (the element less the first ones) as a loop of unknown count:
records of pass k are the context `iteration k`, those of the later passes
`iteration MAX_STAGES or later`. A write to the container forgets the first children
(layer_tails.forget)."""
from __future__ import annotations

import ast
from typing import Optional

from ..frontend.walk import walk
from ..shapes.expr import Expr
from ..shapes.shape import ge
from ..shapes.values import IntV, ModuleV
from . import bounded_loops, first_pass, grown_lists, loop_counts
from .objects import ChoiceV, RangeV

MAX_STAGES = 4  # passes followed one by one (a model's stages: four in most families)


def peels(it, st: ast.For, fr) -> bool:
    """Whether a constructor's `for` over `it` runs its first passes one by one: a range of
    step 1 from a known start whose length is not known, a loop without `else` binding one name
    that the body uses as an index (`widths[i]`), a body that writes no attribute and registers
    no module by name (first_pass._registers) but appends to an instance's container
    (`self.stages.append(stage)`), and a layer container of known children the constructor
    reaches, for the passes to fill."""
    if not fr.qualname.endswith("__init__") or st.orelse or not isinstance(st.target, ast.Name):
        return False
    if not first_pass._open_range(it, st) and not (
            isinstance(it, RangeV) and it.step.value == 1 and it.start.value is not None
            and (it.stop - it.start).value is None):
        return False
    name = st.target.id
    if not any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id == name
               for s in st.body for n in walk(s)) or first_pass._registers(st.body) or not _fills(st.body):
        return False
    return any(isinstance(c, ModuleV) for c, _ in grown_lists.reachable(fr.env).values())


def _fills(body: list) -> bool:
    """Whether the body appends to a container held in an attribute (`self.stages.append(...)`)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend")
               and isinstance(n.func.value, ast.Attribute) for s in body for n in walk(s))


def run_peeled(cf, st: ast.For, fr, it) -> None:
    """The first MAX_STAGES passes, each an undecided arm inside the one before, the rest of the
    range a loop of unknown count inside the last; then the first children of each container
    the passes grew by one layer each (`prefix`)."""
    if not isinstance(it, RangeV):  # (first_pass._open_range)
        it = RangeV(Expr.const(0), cf.interp.fresh_symbol("n", None, lo=0), Expr.const(1))
    mods = {k: (c, n0) for k, (c, n0) in grown_lists.reachable(fr.env).items() if isinstance(c, ModuleV)}
    snaps: dict = {k: [] for k in mods}
    saved = getattr(fr, "iter_label", "")

    def run(k: int) -> Optional[str]:
        fr.iter_label = f"iteration {k}"
        cf.assign(st.target, IntV(it.start + Expr.const(k)), fr, st)
        flow = cf.exec_block(st.body, fr)
        for key, (c, _) in mods.items():
            snaps[key].append(list(c.children) if c.children is not None else None)
        if flow in ("return", "raise"):
            return flow
        if flow == "break":
            return None
        if k + 1 < MAX_STAGES:
            bounded_loops.maybe_run(cf, fr, lambda: run(k + 1), ge(it.stop - it.start, k + 2))
            return None
        rest = RangeV(it.start + Expr.const(MAX_STAGES), it.stop, it.step)
        fr.iter_label = saved
        return cf._loop_once(st, fr, lambda: cf.assign(st.target, cf.loop_element(rest, None, fr), fr, st),
                             cf.trip_count(rest))

    try:
        bounded_loops.maybe_run(cf, fr, lambda: run(0), ge(it.stop - it.start, 1))
    finally:
        fr.iter_label = saved
    for key, (c, n0) in mods.items():
        _settle(c, n0, snaps[key])


def _settle(c: ModuleV, n0: int, snaps: list) -> None:
    """`c`'s first children, where every followed pass appended one layer to it and the later
    passes left it of unknown length (grown_lists.widen)."""
    if c.children is not None or c.elem is None or len(snaps) != MAX_STAGES or \
            any(s is None or len(s) != n0 + k + 1 for k, s in enumerate(snaps)):
        return
    first = snaps[-1]
    if any(grown_lists.layer_elem(v) is None for v in first):
        return
    c.prefix, c.sure = tuple(first), n0


def runs(it, st: ast.For) -> bool:
    """Whether a `for` over `it` follows its first children pass by pass."""
    return isinstance(it, ModuleV) and it.prefix is not None and it.children is None and it.elem is not None \
        and not st.orelse


def later(m: ModuleV):
    """The children past the first ones: the element's options that are none of them (the
    instances the later passes built), else the element, which stands for any child."""
    if isinstance(m.elem, ChoiceV):
        rest = [o for o in m.elem.options if not any(o is p for p in m.prefix)]
        if rest:
            return rest[0] if len(rest) == 1 else ChoiceV(tuple(rest))
    return m.elem


def run_loop(cf, st: ast.For, fr, it: ModuleV) -> None:
    """The `for` over `it` (runs): child k in pass k, stopping after any pass past the sure
    ones, the later children as a loop of unknown count after the last."""
    saved, counting = getattr(fr, "iter_label", ""), loop_counts.enter(fr, st, None)
    reached = grown_lists.reachable(fr.env)
    items, tail = list(it.prefix), later(it)

    def run(k: int) -> Optional[str]:
        if k == len(items):
            fr.iter_label = f"iteration {k} or later"
            return cf._loop_once(st, fr, lambda: cf.assign(st.target, tail, fr, st))
        fr.iter_label = f"iteration {k}"
        cf.assign(st.target, items[k], fr, st)
        flow = cf.exec_block(st.body, fr)
        if flow in ("return", "raise"):
            return flow
        if flow == "break":
            return None
        return step(k + 1)

    def step(k: int) -> Optional[str]:
        if k < it.sure:
            return run(k)
        bounded_loops.maybe_run(cf, fr, lambda: run(k))
        return None

    try:
        flow = step(0)
    finally:
        fr.iter_label = saved
        loop_counts.leave(fr, counting)
    grown_lists.note_growth(reached, {}, cf.mutated, cf.join_values)
    return flow if flow in ("return", "raise") else None




def takes(it, st: ast.For, fr) -> bool:
    """Whether the `for` over `it` is a constructor's stage loop (peels) or a loop over its stages (runs)."""
    return runs(it, st) or peels(it, st, fr)


def run(cf, st: ast.For, fr, it):
    return run_loop(cf, st, fr, it) if runs(it, st) else run_peeled(cf, st, fr, it)
