"""Calls that repeat one already made: the stack of identical layers.

`for layer in self.layers: h = layer(h, mask)` over a `ModuleList` of N layers built alike calls
the same `forward` N times with inputs of the same shapes; a BERT's encoder is most of its
analysis. A call is answered from an earlier one when nothing it could read differs:

- the same function object, and receiver, arguments and keywords alike in every part the
  callee can read (`alike`: shapes, ints, layers' configurations, instances' attributes,
  recursively; identity is not compared, so a second layer built like the first matches);
- the same fact store, unchanged since the earlier call ended (`FactStore.epoch`): the earlier
  call's own facts are in it, and nothing else was added, removed or pushed;
- nothing on the heap written since then (`Interp.mutations`), and no unknown rank resolved
  (`Interp.stars`): what the callee reads through globals or other objects is what it was;
- the same calling situation (`Frame` flags that change what a callee does: depth, root, ...).

The earlier call qualifies only if it was quiet: it wrote nothing on the heap, made no new
symbol, resolved no rank, reported no error, failure or hole, was not cut short as recursion,
and returned a value nothing can write to (tensors, numbers, tuples of them). Then running the
callee again would compute the same value and add facts already there.

Not while module code runs (`Interp.module_code`): it rebinds globals without writing to any
object. Only where no records are kept (`Interp.observe` off: `shapehint check` and the
questions); the editor's hover shows what each call saw, so there every call runs. Branch
records of the skipped call are not made: the earlier call's records were made under no more facts than the
repeat would see, so the repeat could only decide more, which changes no verdict over all calls
(questions/branches.py judges an `if` by every execution of it).
"""
from __future__ import annotations

from typing import Optional

from ..shapes.values import (BoolV, DictV, DtypeV, EllipsisV, ExtRef, FloatV, IntV, ListV, ModuleV, NoneV,
                             SliceV, StrV, TensorV, TupleV, UnknownV, Value)
from .objects import BoundMethod, BuiltinFn, ClassObj, FuncObj, InstanceObj, OpaqueV, PartialV

MAX_PARTS = 4000  # parts compared at most per call: a receiver bigger than that is rarely called twice
MAX_ENTRIES = 8  # per function: the distinct calls remembered

_PRIMITIVE = (int, float, str, bool, type(None))


class _Unlike(Exception):
    """A part that cannot be compared, or too many parts."""


def alike(a, b, limit: int = MAX_PARTS) -> bool:
    """Whether a callee could tell `a` from `b` (values, or lists, tuples and dicts of them):
    the same shapes, ints, layers' configurations, instances' attributes, recursively. An object
    is alike itself (nothing was written to it meanwhile: the memo's `world`); identity of
    different objects is otherwise not compared, so a second layer built like the first matches."""
    try:
        return _alike(a, b, [limit])
    except _Unlike:
        return False


_FIELDS = {TensorV: ("shape", "dtype", "contiguous", "layout_note", "requires_grad", "is_param", "optional"),
           IntV: ("expr",), FloatV: ("value",), StrV: ("value",), BoolV: ("pred", "implied"), NoneV: (),
           EllipsisV: (), DtypeV: ("name",), ExtRef: ("path",), OpaqueV: ("path",), UnknownV: ("reason",)}
_PARTS = {TupleV: ("is_size", "items"), SliceV: ("start", "stop", "step"), ListV: ("items", "elem", "length", "name"),
          DictV: ("open", "items"), ModuleV: ("kind", "cfg", "children", "names", "elem"),
          InstanceObj: ("cls", "attrs", "seq", "base_layer"), BoundMethod: ("func", "self_obj"),
          PartialV: ("func", "args", "kwargs")}
_SHARED = (FuncObj, ClassObj, BuiltinFn)  # long-lived: the same object or not


def _alike(a, b, budget: list) -> bool:
    if a is b:
        return True
    budget[0] -= 1
    if budget[0] < 0:
        raise _Unlike
    t = type(a)
    if t is not type(b):
        return False
    if t in _PRIMITIVE:
        return a == b
    fields = _FIELDS.get(t)
    if fields is not None:
        return all(getattr(a, f) == getattr(b, f) for f in fields)
    if t in _SHARED:
        return False
    parts = _PARTS.get(t)
    if parts is not None:
        return all(_alike(getattr(a, f), getattr(b, f), budget) for f in parts)
    if t is tuple or t is list:
        return len(a) == len(b) and all(_alike(x, y, budget) for x, y in zip(a, b))
    if t is dict:
        return a.keys() == b.keys() and all(_alike(x, b[k], budget) for k, x in a.items())
    raise _Unlike  # a kind of value not described here: never taken for alike


def _immutable(v: Value) -> bool:
    """A result the caller can keep without anything writing to it later."""
    if isinstance(v, (TensorV, IntV, FloatV, BoolV, StrV, NoneV, DtypeV, UnknownV)):
        return True
    return isinstance(v, TupleV) and all(_immutable(i) for i in v.items)


class _Entry:
    __slots__ = ("args", "kwargs", "situation", "store", "epoch", "world", "result", "dead", "assumes_default")


class CallMemo:
    """One analysis's remembered calls (an `Interp` owns one)."""

    def __init__(self):
        self._by_func: dict = {}  # id(FuncObj) -> (FuncObj, [_Entry]); the FuncObj keeps its id unique
        self.hits = 0

    def lookup(self, it, f: FuncObj, args: list, kwargs: dict, situation: tuple, store) -> Optional[_Entry]:
        held = self._by_func.get(id(f))
        if held is None:
            return None
        world = (it.mutations, len(it.stars))
        for e in held[1]:
            # nothing was written since the earlier call ended, so its arguments are still as
            # the callee saw them
            if e.store is store and e.epoch == store.epoch and e.world == world and e.situation == situation \
                    and len(e.args) == len(args) and alike(e.args, args) and alike(e.kwargs, kwargs):
                self.hits += 1
                return e
        return None

    def remember(self, it, f: FuncObj, args: list, kwargs: dict, situation: tuple, store, result: Value,
                 dead: bool, assumes_default: bool) -> None:
        if not _immutable(result):
            return
        e = _Entry()
        e.args, e.kwargs, e.situation, e.store, e.epoch = list(args), dict(kwargs), situation, store, store.epoch
        e.world = (it.mutations, len(it.stars))
        # a result that is one of the arguments stands for the repeat's own argument
        e.result = _slots(result, args)
        e.dead, e.assumes_default = dead, assumes_default
        entries = self._by_func.setdefault(id(f), (f, []))[1]
        entries.append(e)
        if len(entries) > MAX_ENTRIES:
            del entries[0]

    @staticmethod
    def result_for(e: _Entry, args: list) -> Value:
        return _unslot(e.result, args)


def _slots(v: Value, args: list):
    for i, a in enumerate(args):
        if v is a:
            return ("arg", i)
    if isinstance(v, TupleV) and any(item is a for item in v.items for a in args):
        return ("tuple", v, tuple(_slots(item, args) for item in v.items))
    return ("value", v)


def _unslot(slot, args: list) -> Value:
    if slot[0] == "arg":
        return args[slot[1]]
    if slot[0] == "tuple":
        return TupleV(tuple(_unslot(s, args) for s in slot[2]), slot[1].is_size)
    return slot[1]


def quiet_state(it) -> tuple:
    """What a quiet call leaves as it found it (see the module docstring)."""
    return (it.mutations, it._fresh, len(it.stars), len(it.sink._diags), len(it.failures), len(it.failed_asserts),
            len(it.holes), len(it.opaque_names), len(it.internal_errors), len(it.cut_short), it.cutoffs,
            len(it.functions), len(it.classes))
