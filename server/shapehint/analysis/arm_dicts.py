"""Dicts an undecided `if`'s arms write in place: `if nxt > self.output_stride: ba['stride'] = 1`.

Both arms write the one dict object, so without care the last writer wins: past the `if`, the
dict held the first arm's `stride = 1` whatever the test (a builder's blocks all of stride 1, a
wrong resolution). Each dict a name holds before the `if` is put back as it was after the first
arm, so the second arm starts from the same contents; past the `if` it holds, per key, the join
of what the arms that get on left there (a key both left alike keeps its value); a key only one
arm left there holds a value not known (a builder's `ba.setdefault('group_size', g)` under
`if g is not None:`: the blocks it builds take it, or their default; `key in d` still reads it
there, as the last writer left it before). So past a flag's `if` too
(`embed_args.update(output_fmt='NHWC')` under `if dynamic_img_size:`): before, its dicts went
back to what they held before the `if`, and a key an arm rewrote read its old value. Lists join
in arm_lists.py, `self`'s attributes in ControlFlow._join_attrs.
"""
from __future__ import annotations

from typing import Callable

from ..shapes.values import DictV, UnknownV


def before(env: dict) -> list:
    """The dicts `env`'s names hold, each with what it holds now."""
    seen, out = set(), []
    for v in env.values():
        if isinstance(v, DictV) and id(v) not in seen:
            seen.add(id(v))
            out.append((v, dict(v.items), v.open, v.exact, v.elem))
    return out


def _changed(box) -> bool:
    v, items = box[0], box[1]
    return v.items.keys() != items.keys() or any(v.items[k] is not items[k] for k in items) or \
        (v.open, v.exact, v.elem) != box[2:]


def after_first_arm(boxes: list, mutated: Callable) -> list:
    """What the first arm left in each dict (None: untouched), each put back for the second."""
    firsts = []
    for box in boxes:
        if not _changed(box):
            firsts.append(None)
            continue
        v = box[0]
        firsts.append((dict(v.items), v.open, v.exact, v.elem))
        _reset(box, mutated)
    return firsts


def _reset(box, mutated: Callable) -> None:
    v, items = box[0], box[1]
    mutated(v)
    v.items.clear()
    v.items.update(items)
    v.open, v.exact, v.elem = box[2:]


def join(boxes: list, firsts: list, on1: bool, on2: bool, mutated: Callable, join_values: Callable) -> None:
    """Past the `if`: each dict as the arms that get on (`on1`, `on2`) left it, joined."""
    for box, first in zip(boxes, firsts or [None] * len(boxes)):
        v = box[0]
        second = (dict(v.items), v.open, v.exact, v.elem) if _changed(box) else None
        if first is None and second is None:
            continue
        state1 = first or (box[1], *box[2:])
        state2 = second or (box[1], *box[2:])
        if not on1 or not on2:
            if on1 or on2:
                _set(v, state1 if on1 else state2, mutated)
            continue
        _set(v, _joined(state1, state2, box, join_values), mutated)


def _set(v: DictV, state: tuple, mutated: Callable) -> None:
    mutated(v)
    v.items.clear()
    v.items.update(state[0])
    v.open, v.exact, v.elem = state[1:]


def _joined(s1: tuple, s2: tuple, box, join_values: Callable) -> tuple:
    items1, items2 = s1[0], s2[0]
    items = {k: (items1[k] if items1[k] is items2[k] else join_values([items1[k], items2[k]]))
             for k in items1 if k in items2}
    # a key one arm alone put there: what it holds is not known (as the last writer's arm had it
    # there, and a spread of the dict passes it; the path without it passes the callee's default)
    items.update({k: UnknownV("one arm's key") for k in {*items1, *items2} if k not in items})
    same = s1[1:] == s2[1:]
    return items, (s1[1] if same else (s1[1] or s2[1] or True)), (s1[2] and s2[2]), (s1[3] if same else None)
