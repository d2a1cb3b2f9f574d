"""Layer containers whose first layers are known and the rest are some number of one layer
(`nn.Sequential(first, *[Block(c, c) for _ in range(depth - 1)])`: a stage whose first block
changes the width or the resolution and whose others keep it).

The list spread into the container has a length not known, so the container cannot list its
children; it was left unknown, and so was every stage built that way and all that followed it.
It is a container of unknown length whose element joins every layer it may hold (`elem`: all
that reads it as before — indexing, `len`, hover — stays sound), refined by its layout: the
known first children in order, then `tail` applied some number of times, zero included
(`ModuleV.head`, `ModuleV.tail`). Calling it runs the first children in order, then the tail as
a stack of unknown depth (`layers._repeated`); a `for` over it runs its body once per known
child, then as a loop of unknown count over the tail. Only a write to the container
(`append`, `extend`, ...) or a slice of it reads past the layout, and both forget it
(`plain`), leaving the element alone.
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

from ..shapes.values import ExtRef, ListV, ModuleV, UnknownV, Value
from .grown_lists import InArm, layer_elem
from .objects import ChoiceV, SpreadV

SEQUENTIAL = "torch.nn.Sequential"
GROUP = "_one_pass"  # a pass's layers as one (grown_layers): never a child a `for` sees
MAX_HEAD = 32  # known first children run one by one, at most (as an unrolled loop's items)


def sequential_of(fn: Value, args: list, kwargs: dict, join: Callable) -> Optional[ModuleV]:
    """`nn.Sequential(a, b, *rest)`, `rest` a list of unknown length holding one layer (or one
    of several): the container of that layout; None for anything else."""
    if not (isinstance(fn, ExtRef) and fn.path == SEQUENTIAL) or kwargs or not args:
        return None
    spread, head = args[-1], list(args[:-1])
    if not isinstance(spread, SpreadV):
        return None
    grown = grown_layers(spread.seq)
    or_empty = grown is not None and spread.seq.or_empty
    if or_empty and head:
        # (known first layers, then a layout that may be absent: no layout of this kind; the
        # list's element some number of times, zero included, is)
        grown, or_empty = None, False
    head += grown[0] if grown else []
    if not head or len(head) > MAX_HEAD or any(isinstance(a, SpreadV) or layer_elem(a) is None for a in head):
        return None
    tail = grown[1] if grown else layer_elem(spread.seq.elem)
    # (a pass's group is no child: the element joins the layers it holds)
    elem = layer_elem(join(head + (grown[2] if grown else [tail]))) if tail is not None else None
    if elem is None:
        return None
    return ModuleV(SEQUENTIAL, {}, None, None, None, elem, None, head=head, tail=tail, or_empty=or_empty)


def grown_layers(seq: Value) -> Optional[tuple]:
    """(first layers, what each pass appends as one layer, the layers it may append) of a list
    a loop grew (grown_lists.settle): one layer, or a pass's group — a Sequential of the layers
    it appends, one option per choice of those it appends in an undecided arm (InArm)."""
    if not isinstance(seq, ListV) or seq.items is not None or seq.grown is None or not seq.grown[1]:
        return None
    head, block, _ = seq.grown
    members = [b.value if isinstance(b, InArm) else b for b in block]
    if any(layer_elem(m) is None for m in members) or any(layer_elem(h) is None for h in head):
        return None
    if len(block) == 1 and not isinstance(block[0], InArm):
        return list(head), layer_elem(block[0]), members
    options = [ModuleV(SEQUENTIAL, {GROUP: True}, None, list(kids)) for kids in _choices(block) if kids]
    if not options:
        return None
    return list(head), (options[0] if len(options) == 1 else ChoiceV(tuple(options))), members


def _choices(block) -> list:
    """Each sequence of layers a pass may append: those in arms taken or not, in order."""
    out = [[]]
    for b in block:
        if isinstance(b, InArm):
            out = [o + extra for o in out for extra in ([], [b.value])]
        else:
            out = [o + [b] for o in out]
    return out


def _group(v: Value) -> bool:
    opts = v.options if isinstance(v, ChoiceV) else (v,)
    return any(isinstance(o, ModuleV) and o.cfg.get(GROUP) for o in opts)


def plain(m: ModuleV) -> ModuleV:
    """`m` as a container of its element only (a slice of it: which children it keeps is not
    known)."""
    if m.head is None:
        return m
    return ModuleV(m.kind, m.cfg, m.span, None, None, m.elem, None)


def forget(m: ModuleV) -> None:
    """`m` written to: its layout no longer holds."""
    m.head = m.tail = m.prefix = None


def splits(it: Value, st: ast.For) -> bool:
    """Whether a `for` over `it` runs its known first children one by one, then its tail: a
    loop with no `else` and no `break` (the tail's passes join what every pass leaves)."""
    return isinstance(it, ModuleV) and it.head is not None and it.tail is not None and not _group(it.tail) and \
        not it.or_empty and not st.orelse and \
        not any(isinstance(n, ast.Break) for b in st.body for n in ast.walk(b))


def run_loop(flow_ctl, st: ast.For, fr, it: ModuleV):
    """The `for` over `it` (splits): each known child in order, then the tail some number of
    times (`_loop_once`, a loop that may run no pass)."""
    for child in it.head:
        flow_ctl.assign(st.target, child, fr, st)
        flow = flow_ctl.exec_block(st.body, fr)
        if flow in ("return", "raise"):
            return flow
    tail = it.tail
    return flow_ctl._loop_once(st, fr, lambda: flow_ctl.assign(st.target, tail, fr, st))


def call(layers, m: ModuleV, x: Value, fr, span, labels) -> Value:
    """`m(x)` (a Sequential of that layout): the known children in order, then the tail as a
    stack of unknown depth; joined with `x` where the container may hold no layer."""
    out = x
    for child in m.head:
        out = layers.call_value(child, [out], {}, fr, span, None, labels)
        if isinstance(out, UnknownV):
            return out
    out = layers._repeated(m.tail, out, fr, span, labels)
    return layers.join_values([x, out], fr.facts) if m.or_empty and not isinstance(out, UnknownV) else out
