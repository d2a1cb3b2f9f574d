"""The first pass of a loop over a range of unknown length whose body tells it apart (issue 27:
a stage's blocks built `for i in range(depth): stride = stride if i == 0 else 1`, the first block
taking the stage's stride, input width and shortcut, the others keeping the resolution).

Run to a fixpoint with one element `start <= i < stop`, the body's `i == start` was undecided
in every pass, so every block joined the first block's stride with the others' 1: the stage's
resolution, and everything after it, was unknown. Where the body compares the loop's name with
the range's start, the first pass runs on its own, with `i` that start, as the arm of an
undecided `if` (only when the range is not empty: its other arm skips the loop, as
bounded_loops.py runs each pass); inside it, the passes after it run as a loop of unknown count
over `range(start + 1, stop)`, in which the comparison is decided. A list the passes grow is the
first pass's items, then some number of the later passes' (grown_lists.py), so a Sequential of
it runs the first block, then the others as a stack (layer_tails.py). A `range(n)` whose `n` is no
int the analysis holds (`range(len(depths))` of a sequence of unknown length: a model's stages
built `downsample=i > 0`) runs so too, from 0 to a length of its own."""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import ge
from ..shapes.values import IntV, UnknownV
from . import bounded_loops
from .objects import RangeV


def peels(it, st: ast.For) -> bool:
    """Whether a `for` over `it` runs its first pass on its own: a range of step 1 from a known
    start whose length is not known, a loop without `else` binding one name that the body
    compares with that start, and a body that writes no attribute and registers no module."""
    if _open_range(it, st):
        start = 0
    elif not isinstance(it, RangeV) or it.step.value != 1 or it.start.value is None \
            or (it.stop - it.start).value is not None:
        return False
    else:
        start = it.start.value
    if st.orelse or not isinstance(st.target, ast.Name):
        return False
    return _compares(st.body, st.target.id, start) and not _registers(st.body)


def _open_range(it, st: ast.For) -> bool:
    """`range(n)` of an `n` that is no int the analysis holds (`len` of a sequence of unknown
    length): from 0, of some length (as first_items.of_range reads it)."""
    call = st.iter
    return isinstance(it, UnknownV) and it.reason == "range" and isinstance(call, ast.Call) \
        and isinstance(call.func, ast.Name) and call.func.id == "range" and len(call.args) == 1 \
        and not call.keywords


_REGISTERING = {"add_module", "register_module", "register_buffer", "register_parameter", "setattr"}


def _registers(body: list) -> bool:
    """Whether the body writes an attribute or registers a module: a container subclass that
    registers each pass's block under a name not known is those blocks stacked some number of
    times (loop_counts.py), which a first pass registered apart (in an arm: maybe absent) breaks.
    An attribute given a value that can hold no module of its own (`self.info += [dict(i=i)]`, a
    record of each stage) registers nothing."""
    for stmt in body:
        if isinstance(stmt, (ast.Assign, ast.AugAssign)) and _inert(stmt.value):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                return True
            if isinstance(node, ast.Call) and (isinstance(node.func, ast.Attribute) and node.func.attr in _REGISTERING
                                               or isinstance(node.func, ast.Name) and node.func.id in _REGISTERING):
                return True
    return False


def _inert(e) -> bool:
    """A constant, a string, a dict, or a list or tuple of those: no module, nor a list of
    modules a ModuleList's `+=` would register."""
    if isinstance(e, (ast.Constant, ast.JoinedStr, ast.Dict)):
        return True
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "dict":
        return True
    return isinstance(e, (ast.List, ast.Tuple)) and all(_inert(x) for x in e.elts)


def _compares(body: list, name: str, start: int) -> bool:
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Compare) and len(node.ops) == 1 \
                    and isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.Gt, ast.LtE)):
                sides = (node.left, node.comparators[0])
                if any(isinstance(s, ast.Name) and s.id == name for s in sides) \
                        and any(isinstance(s, ast.Constant) and s.value == start and type(s.value) is int
                                for s in sides):
                    return True
    return False


def run_loop(cf, st: ast.For, fr, it) -> None:
    """The first pass as an undecided arm (the range not empty), the passes after it inside it."""
    if not isinstance(it, RangeV):  # (`_open_range`)
        it = RangeV(Expr.const(0), cf.interp.fresh_symbol("n", None, lo=0), Expr.const(1))
    saved = getattr(fr, "iter_label", "")
    try:
        if counted(cf.interp.counted, it):
            return _first(cf, st, fr, it, saved)
        bounded_loops.maybe_run(cf, fr, lambda: _first(cf, st, fr, it, saved), ge(it.stop - it.start, 1))
    finally:
        fr.iter_label = saved
    return None


def counted(names: set, it: RangeV) -> bool:
    """Whether the range is `range(n)` of a count the running construction context assumes from
    1 up (param_lengths.py: `layers[0]` where it assumes `len(layers) == 4`), so that every path
    runs its first pass. Not any size: a symbol is at least 1, yet a stage of `n` blocks may be
    built with none (its input is then its output)."""
    syms = it.stop.symbols()
    return bool(names) and it.start.value == 0 and len(syms) == 1 and next(iter(syms)) in names \
        and it.stop == Expr.sym(next(iter(syms)))


def _first(cf, st: ast.For, fr, it: RangeV, label: str) -> Optional[str]:
    fr.iter_label = "iteration 0"
    cf.assign(st.target, IntV(it.start), fr, st)
    flow = cf.exec_block(st.body, fr)
    if flow in ("return", "raise"):
        return flow
    if flow == "break":
        return None
    rest = RangeV(it.start + Expr.const(1), it.stop, it.step)
    fr.iter_label = label  # what iteration records and messages name: as the loop had it
    return cf._loop_once(st, fr, lambda: cf.assign(st.target, cf.loop_element(rest, None, fr), fr, st),
                         cf.trip_count(rest))
