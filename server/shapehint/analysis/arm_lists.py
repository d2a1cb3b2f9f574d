"""Lists that the arms of an undecided `if` fill in place (`layers.append(conv_a)` in one arm,
`layers.append(conv_b)` in the other): both arms run on the one list object, so without this
the list held both arms' layers, in a row — a block whose `expanded != cin` was undecided
(torchvision's FusedMBConv, once an imported helper's width was unknown) became a Sequential of
the expand, project and plain convolutions together, and the model's run reported a false
SH101. Each arm starts from the list as it was; past the `if`, the list holds what the arms
that get on left in it when they agree (the same items), else its items are unknown — never
one arm's, which would claim that arm was taken. (A constructor flag's `if` opens its lists
and dicts the same way: arm_dicts.py.)

Arms that bind different lists to one name or attribute (a base constructor given a list of
layers on one path and none on the other, keeping `[]`: `self.layers = layers if layers is not
None else []`) join the same way when one of them is of unknown length (`joined`): a list of
unknown length whose item is one of theirs. (Lists of known items, each a layer or callable,
are a choice of them first: list_choices.py.)"""
from __future__ import annotations

from typing import Callable, Optional

from ..shapes.values import ListV, UnknownV, Value


def lists_before(env: dict) -> list:
    """(list, its state) for each list of known items `env`'s names hold."""
    seen: set = set()
    out = []
    for v in env.values():
        if isinstance(v, ListV) and v.items is not None and id(v) not in seen:
            seen.add(id(v))
            out.append((v, _state(v)))
    return out


def after_first_arm(boxes: list, mutated: Callable) -> list:
    """What the first arm left in each list (None: untouched), each list put back as it was."""
    out = []
    for v, before in boxes:
        if _same(_state(v), before):
            out.append(None)
            continue
        out.append(_state(v))
        _set(v, before, mutated)
    return out


def join_lists(boxes: list, first: list, gets_on1: bool, gets_on2: bool, mutated: Callable, join: Callable,
               prefixes: bool = False) -> None:
    """Past the `if`: each list as the arms that get on left it, or of unknown length, its item
    the join of every item either arm left in it (each of its items is one of those); `prefixes`:
    past a pass of a loop run pass by pass, where one arm's items are the other's first
    (bounded_loops.py), at most the longer's."""
    for (v, before), arm1 in zip(boxes, first):
        state1, state2 = arm1 or before, _state(v)
        if _same(state1, state2) or not gets_on1:
            continue  # the arms agree, or only the second gets on: as it is
        if not gets_on2:
            _set(v, state1, mutated)
            continue
        mutated(v)
        v.items, v.elem, v.length = None, join(_items(state1) + _items(state2)), None
        v.upto = _longer_of_prefixes(state1, state2) if prefixes else ()
        v.grown, v.or_empty = _layout_or_empty(state1, state2)


def joined(vals: list, join: Callable) -> Optional[ListV]:
    """The join of lists, one of them of unknown length: a new list of unknown length, its item
    the join of every item any of them holds; None when a value is no plain list (a grown one,
    a parameter's, one whose items depend on its length), or when every length is known."""
    if not all(isinstance(v, ListV) and v.grown is None and v.if_length is None and v.name is None for v in vals) \
            or all(v.items is not None for v in vals):
        return None
    items: list[Value] = [i for v in vals for i in _items(_state(v))]
    return ListV(None, join(items) if items else UnknownV("item"))


def _layout_or_empty(a: tuple, b: tuple) -> tuple:
    """(grown, or_empty) of the join of an empty list and a list a loop grew (ListV.grown: the
    stages built, the first on its own, first_pass.py, in the arm where the range is not
    empty): that layout, or empty. Without it, a Sequential of it was a stack of a choice of
    every stage, each run first on the Sequential's input: a later stage's run on the model's
    input, which no run makes."""
    for x, y in ((a, b), (b, a)):
        if x[0] == [] and y[0] is None and y[4][0] is not None:
            return y[4][0], True
    return None, False


def _items(state: tuple) -> list:
    """What a list in `state` may hold: its items, or the item of a list of unknown length."""
    items, elem = state[:2]
    return list(items) if items is not None else [elem if elem is not None else UnknownV("item")]


def _longer_of_prefixes(a: tuple, b: tuple) -> tuple:
    """When the items either arm may leave (known, or at most known ones: `upto`) are a prefix
    of the other's, those others: the list holds at most them, each where it is
    (bounded_loops.py: the arm that runs one more pass of a loop, the arm that stops)."""
    xs, ys = (s[0] if s[0] is not None else s[3] for s in (a, b))
    if (a[0] is None and not a[3]) or (b[0] is None and not b[3]):
        return ()
    short, long = sorted((xs, ys), key=len)
    return tuple(long) if all(x is y for x, y in zip(short, long)) and long else ()


def _state(v: ListV) -> tuple:
    return (list(v.items) if v.items is not None else None), v.elem, v.length, v.upto, (v.grown, v.or_empty)


def _set(v: ListV, state: tuple, mutated: Callable) -> None:
    mutated(v)
    v.items = list(state[0]) if state[0] is not None else None
    v.elem, v.length, v.upto = state[1], state[2], state[3]
    v.grown, v.or_empty = state[4]  # (after `mutated`, which forgets them)


def _same(a: tuple, b: tuple) -> bool:
    if a[0] is None or b[0] is None:
        return a[0] is None and b[0] is None and a[1] is b[1] and a[2] == b[2] and a[3] == b[3] and \
            a[4][0] is b[4][0] and a[4][1] == b[4][1]
    return len(a[0]) == len(b[0]) and all(x is y for x, y in zip(a[0], b[0]))
