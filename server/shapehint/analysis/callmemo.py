"""Calls and constructions that repeat one already made: the stack of identical layers.

`nn.ModuleList([Block(d) for _ in range(depth)])` builds the same block `depth` times, and
`for block in self.blocks: h = block(h)` calls the same `forward` that many times with inputs of
the same shapes; on real model code, constructions alike an earlier one are a fifth of the
interpreter's work. A repeat is answered from the earlier one when nothing it could read differs:

- the same function (or class), and receiver, arguments and keywords alike in every part the
  callee can read (`alike`: shapes, ints, layers' configurations, instances' attributes,
  recursively; identity is not compared, so a second layer built like the first matches);
- the same fact store, unchanged since the earlier call ended (`FactStore.epoch`): the earlier
  call's own facts are in it, and nothing else was added, removed or pushed;
- nothing written since that the callee can reach (`_unchanged_since`): no object reachable
  from either call's arguments (or from the earlier construction), nothing module code made
  (what globals reach), no unknown rank resolved, no module code run. A list the caller fills
  (`layers.append(Block(d))`) is no obstacle;
- the same calling situation (the `Frame` flags that change what a callee does: depth, root, ...).

The earlier one qualifies only if it was quiet: the analysis's journal (journal.py) gained
while it ran only entries of the kinds below (`CALL_SKIPS`), so it made no new symbol, resolved
no rank, reported no error, failure or hole, was not cut short as recursion, nor made any
effect of a kind added later without saying here that a repeat may skip it; and

- a call wrote nothing at all, and returned a value nothing can write to (tensors, numbers,
  tuples of them): running the callee again would compute the same value and add facts already
  there;
- a construction wrote only to objects it created (the instance, its layers, lists it built):
  the repeat gets a copy of what it built (`_Copier`), sharing what it found (its arguments —
  the repeat's own, in their place — and what globals hold).

Not while module code runs (`Interp.module_code`): it rebinds globals without writing to any
object. Only where no records are kept (`Interp.observe` off: `shapehint check` and the
questions); the editor's hover shows what each call saw, so there every call runs. Branch
records of the skipped call are not made: the earlier call's records were made under no more
facts than the repeat would see, so the repeat could only decide more, which changes no verdict
over all calls (questions/branches.py judges an `if` by every execution of it).

Calls into other modules with constant arguments are also answered across roots (anycaller.py).
"""
from __future__ import annotations

from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import Shape
from ..shapes.values import (BoolV, DictV, DtypeV, EllipsisV, ExtRef, FloatV, IntV, ListV, ModuleV, NoneV,
                             SliceV, StrV, TensorV, TupleV, UnknownV, Value, born_now)
from .objects import BoundMethod, BuiltinFn, ClassObj, FuncObj, InstanceObj, OpaqueV, PartialV

MAX_PARTS = 4000  # parts compared at most per call: a receiver bigger than that is rarely called twice
MAX_ENTRIES = 8  # per function or class: the distinct calls remembered

# The journal's kinds of effects a repeat may skip (every other kind makes a call not quiet):
# - "branch": its branch records were made under no more facts than the repeat's (above);
# - "called-from": a hit notes the caller as the call would (calls.call_function);
# - "gave-up": the earlier call, under the same root (the situation), already noted it;
# - "store": fact stores made are resources, their facts counted by `FactStore.epoch`;
# - "span": moves of what a construction made, which its copy restores (`_survey`);
# - "born-in-loops": the serials a loop or comprehension made things in (own_entries.py): a copy's
#   are later ones, so the repeat only gives up an entry of its own there.
CALL_SKIPS = ("branch", "called-from", "gave-up", "store", "span", "born-in-loops")
# a construction may also write, to what it made only (`remember_built` checks the writes)
BUILD_SKIPS = CALL_SKIPS + ("write", "global-write")

_PRIMITIVE = (int, float, str, bool, type(None))
_PRIMITIVE_TYPES = frozenset(_PRIMITIVE)  # (membership in a set: `in` a tuple compares one by one)
WRITABLE = (InstanceObj, ModuleV, ListV, DictV)  # what analysed code writes to (Interp.mutated)


class _Unlike(Exception):
    """A part that cannot be compared, or too many parts."""


def alike(a, b, limit: int = MAX_PARTS, pairs: Optional[dict] = None) -> bool:
    """Whether a callee could tell `a` from `b` (values, or lists, tuples and dicts of them):
    the same shapes, ints, layers' configurations, instances' attributes, recursively. An object
    is alike itself (nothing was written to it meanwhile: `_unchanged_since`); identity of
    different objects is otherwise not compared, so a second layer built like the first matches.
    `pairs` gets id(part of a) -> the part of b in its place."""
    try:
        return _alike(a, b, [limit], pairs)
    except _Unlike:
        return False


_FIELDS = {TensorV: ("shape", "dtype", "contiguous", "layout_note", "requires_grad", "is_param", "optional"),
           IntV: ("expr",), FloatV: ("value", "quotient"), StrV: ("value",), BoolV: ("pred", "implied"), NoneV: (),
           EllipsisV: (), DtypeV: ("name",), ExtRef: ("path",), OpaqueV: ("path", "kind"), UnknownV: ("reason",)}
_PARTS = {TupleV: ("is_size", "items"), SliceV: ("start", "stop", "step"), ListV: ("items", "elem", "length", "name"),
          DictV: ("open", "exact", "written_elsewhere", "items", "elem"), ModuleV: ("kind", "cfg", "children", "names", "elem", "length", "head", "tail"),
          InstanceObj: ("cls", "attrs", "seq", "base_layer", "items"), BoundMethod: ("func", "self_obj"),
          PartialV: ("func", "args", "kwargs")}
_SHARED = (FuncObj, ClassObj, BuiltinFn)  # long-lived: the same object or not
_SHARED_TYPES = frozenset(_SHARED)


def _alike(a, b, budget: list, pairs: Optional[dict]) -> bool:
    if a is b:
        return True
    budget[0] -= 1
    if budget[0] < 0:
        raise _Unlike
    t = type(a)
    if t is not type(b):
        return False
    if t in _PRIMITIVE_TYPES:
        return a == b
    if pairs is not None and isinstance(a, Value):
        pairs[id(a)] = b
    # (loops, not all() over generators: a layer stack's receivers have hundreds of parts)
    fields = _FIELDS.get(t)
    if fields is not None:
        for f in fields:
            if getattr(a, f) != getattr(b, f):
                return False
        return True
    if t in _SHARED_TYPES:
        return False
    parts = _PARTS.get(t)
    if parts is not None:
        for f in parts:
            if not _alike(getattr(a, f), getattr(b, f), budget, pairs):
                return False
        return True
    if t is tuple or t is list:
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if not _alike(x, y, budget, pairs):
                return False
        return True
    if t is dict:
        if a.keys() != b.keys():
            return False
        for k, x in a.items():
            if not _alike(x, b[k], budget, pairs):
                return False
        return True
    raise _Unlike  # a kind of value not described here: never taken for alike


def _reach(roots, limit: int = MAX_PARTS) -> Optional[set]:
    """ids of the writable objects reachable from `roots`; None past `limit` parts."""
    seen: set = set()
    stack = [roots]
    n = 0
    while stack:
        v = stack.pop()
        n += 1
        if n > limit:
            return None
        t = type(v)
        if t is ClassObj:  # class attributes: a class made in a function, mutable defaults
            if id(v) not in seen:
                seen.add(id(v))
                stack.extend(v.attrs.values())
                stack.extend(v.bases)
            continue
        if t in _PRIMITIVE_TYPES or t in _FIELDS or t in _SHARED_TYPES:
            continue
        if t is tuple or t is list:
            stack.extend(v)
        elif t is dict:
            stack.extend(v.values())
        elif t in _PARTS:
            if isinstance(v, WRITABLE):
                if id(v) in seen:
                    continue
                seen.add(id(v))
            stack.extend(getattr(v, f) for f in _PARTS[t])
    return seen


def _unchanged_since(it, e, roots) -> bool:
    """Nothing the repeat can read was written since entry `e` was made (see the docstring)."""
    if it.env.rank_learning() != e.stars or it.module_runs != e.module_runs:
        return False
    if len(it.mutation_log) == e.log_end:
        return True
    if it.global_mutations:  # something globals reach was written at some point: no relaxing
        return False
    seen = _reach(roots)
    return seen is not None and not any(id(o) in seen for o in it.mutation_log[e.log_end:])


def _immutable(v: Value) -> bool:
    """A result the caller can keep without anything writing to it later."""
    if isinstance(v, (TensorV, IntV, FloatV, BoolV, StrV, NoneV, DtypeV, UnknownV)):
        return True
    return isinstance(v, TupleV) and all(_immutable(i) for i in v.items)


class _Entry:
    __slots__ = ("args", "kwargs", "situation", "store", "epoch", "stars", "module_runs", "log_end", "result",
                 "dead", "assumes_default", "first", "last", "spans", "span_log_end", "steps", "checked")

    def __init__(self, it, args, kwargs, situation, store):
        self.args, self.kwargs, self.situation, self.store = list(args), dict(kwargs), situation, store
        self.epoch, self.stars, self.module_runs = store.epoch, it.env.rank_learning(), it.module_runs
        self.log_end = len(it.mutation_log)

    def matches(self, situation, store, nargs: int) -> bool:
        return self.store is store and self.epoch == store.epoch and self.situation == situation \
            and len(self.args) == nargs


class CallMemo:
    """One analysis's remembered calls and constructions (an `Interp` owns one)."""

    def __init__(self, any_caller=None):
        self._calls: dict = {}  # id(FuncObj) -> (FuncObj, [_Entry]); the FuncObj keeps its id unique
        self._built: dict = {}  # id(ClassObj) -> (ClassObj, [_Entry])
        self.any_caller = any_caller  # calls answered for any caller (anycaller.AnyCallerMemo)
        self.hits = 0
        self.built_hits = 0

    # ---- calls ----------------------------------------------------------------
    def lookup(self, it, f: FuncObj, args: list, kwargs: dict, situation: tuple, store) -> Optional[_Entry]:
        held = self._calls.get(id(f))
        if held is None:
            return None
        kwargs = _plain(kwargs)
        for e in held[1]:
            if e.matches(situation, store, len(args)) and alike(e.args, args) and alike(e.kwargs, kwargs) \
                    and _unchanged_since(it, e, (e.args, e.kwargs, args, kwargs)):
                self.hits += 1
                return e
        return None

    def remember(self, it, f: FuncObj, args: list, kwargs: dict, situation: tuple, store, result: Value,
                 dead: bool, assumes_default: bool) -> None:
        if not _immutable(result):
            return
        e = _Entry(it, args, _plain(kwargs), situation, store)
        # a result that is one of the arguments stands for the repeat's own argument
        e.result = _slots(result, args)
        e.dead, e.assumes_default = dead, assumes_default
        _add(self._calls, f, e)

    @staticmethod
    def result_for(e: _Entry, args: list) -> Value:
        return _unslot(e.result, args)

    # ---- constructions ---------------------------------------------------------
    def lookup_built(self, it, cls: ClassObj, args: list, kwargs: dict, situation: tuple, store,
                     span) -> Optional[InstanceObj]:
        """A copy of an earlier alike construction's instance, or None."""
        held = self._built.get(id(cls))
        if held is None:
            return None
        kwargs = _plain(kwargs)
        for e in held[1]:
            if not e.matches(situation, store, len(args)):
                continue
            pairs: dict = {}
            if alike(e.args, args, pairs=pairs) and alike(e.kwargs, kwargs, pairs=pairs) \
                    and _unchanged_since(it, e, (e.args, e.kwargs, e.result, args, kwargs)):
                if e.spans is None and not self._survey(it, e):
                    held[1].remove(e)
                    return None
                inst = _Copier(e, pairs).copy(e.result)
                inst.span = span
                self.built_hits += 1
                return inst
        return None

    def remember_built(self, it, cls: ClassObj, args: list, kwargs: dict, situation: tuple, store,
                       inst: InstanceObj, first: int, log_start: int) -> None:
        """`inst` was built from serial `first` on, its writes logged from `log_start`."""
        last = born_now()
        if not all(first <= getattr(o, "born", -1) <= last for o in it.mutation_log[log_start:]):
            return  # it wrote to something it found
        e = _Entry(it, args, _plain(kwargs), situation, store)
        # what can be copied is surveyed at the first repeat (most constructions have none)
        e.result, e.first, e.last, e.spans, e.span_log_end = inst, first, last, None, len(it.span_log)
        _add(self._built, cls, e)


    @staticmethod
    def _survey(it, e: _Entry) -> bool:
        """Whether what the construction made can be copied, noting the spans it left them
        (`self.x = layer` later moves a layer's span: Interp.span_log has the span it had)."""
        before: dict = {}
        for obj, span in it.span_log[e.span_log_end:]:
            before.setdefault(id(obj), span)
        e.spans = {}
        if _Copier(e, {}, before).survey(e.result):
            return True
        e.spans = None
        return False


def _plain(kwargs: dict) -> dict:
    """Keyword arguments as a plain dict (an `OpenKwargs` is one: the situation says it is open)."""
    return kwargs if type(kwargs) is dict else dict(kwargs)


def _add(table: dict, key_obj, e: _Entry) -> None:
    entries = table.setdefault(id(key_obj), (key_obj, []))[1]
    entries.append(e)
    if len(entries) > MAX_ENTRIES:
        del entries[0]


_LEAVES = (TensorV, IntV, FloatV, BoolV, StrV, NoneV, EllipsisV, DtypeV, ExtRef, OpaqueV, UnknownV, SliceV,
           FuncObj, ClassObj, BuiltinFn, Expr, Shape)
_PRIM, _LEAF, _WRITABLE, _OTHER = "primitive", "leaf", "writable", "other"
_KINDS: dict = {}  # type -> one of the four, as `_kind` finds it (a copy asks for every part)


def _kind(t: type) -> str:
    got = _KINDS.get(t)
    if got is None:
        got = _KINDS[t] = (_PRIM if t in _PRIMITIVE_TYPES else _LEAF if issubclass(t, _LEAVES)
                           else _WRITABLE if issubclass(t, WRITABLE) else _OTHER)
    return got


class _Copier:
    """Copies what a construction made (serials `first`..`last`), with the spans they had when
    it ended (a later `self.x = layer` moves a layer's span); arguments found in it become the
    repeat's own (`pairs`); everything else it found is shared."""

    def __init__(self, e: _Entry, pairs: dict, spans_before: Optional[dict] = None):
        self.e, self.pairs, self.done, self.before = e, pairs, {}, spans_before or {}

    def _made(self, v) -> bool:
        return isinstance(v, WRITABLE) and self.e.first <= v.born <= self.e.last

    def survey(self, v, budget=None) -> bool:
        """Whether every part of `v` can be copied; notes the spans of what was made."""
        budget = budget if budget is not None else [MAX_PARTS]
        budget[0] -= 1
        if budget[0] < 0:
            return False
        t = type(v)
        kind = _KINDS.get(t) or _kind(t)
        if kind is _PRIM or kind is _LEAF:
            return True
        if t is tuple or t is list or t is dict:
            if t is dict:
                if not all(isinstance(k, _PRIMITIVE) for k in v):
                    return False
                v = v.values()
            for x in v:
                if not self.survey(x, budget):
                    return False
            return True
        if kind is _WRITABLE:
            if t not in _PARTS:
                return False
            if not self._made(v):
                return True  # found, not made: shared (or the repeat's argument)
            if id(v) in self.e.spans:
                return True
            self.e.spans[id(v)] = self.before.get(id(v), getattr(v, "span", None))
        elif t not in (TupleV, BoundMethod, PartialV):
            return False
        for f in _PARTS[t]:
            if not self.survey(getattr(v, f), budget):
                return False
        return True

    def copy(self, v):
        t = type(v)
        kind = _KINDS.get(t) or _kind(t)
        if kind is _PRIM:
            return v
        key = id(v)
        got = self.done.get(key)
        if got is None:
            got = self.pairs.get(key)
        if got is not None:  # (both hold objects only)
            return got
        if t is list:
            return [self.copy(x) for x in v]
        if t is tuple:
            return tuple([self.copy(x) for x in v])
        if t is dict:
            return {k: self.copy(x) for k, x in v.items()}
        if kind is _LEAF or kind is _WRITABLE and not self._made(v):
            return v
        if t is TupleV:
            return TupleV(tuple([self.copy(x) for x in v.items]), v.is_size)
        if t is BoundMethod:
            return BoundMethod(v.func, self.copy(v.self_obj))
        if t is PartialV:
            return PartialV(self.copy(v.func), tuple([self.copy(x) for x in v.args]), self.copy(v.kwargs))
        span = self.e.spans.get(key, getattr(v, "span", None))
        if t is InstanceObj:
            out = InstanceObj(v.cls, {}, span)
            self.done[key] = out
            out.attrs = self.copy(v.attrs)
            out.seq = self.copy(v.seq)
            out.base_layer = self.copy(v.base_layer)
            out.items, out.any_item = self.copy(v.items), v.any_item
            out.many = v.many  # (standing for several: its writes stay joined, many_items.py)
        elif t is ModuleV:
            out = ModuleV(v.kind, {}, span, length=v.length)
            self.done[key] = out
            out.cfg, out.children, out.names, out.elem = (self.copy(v.cfg), self.copy(v.children),
                                                          self.copy(v.names), self.copy(v.elem))
            out.head, out.tail, out.or_empty = self.copy(v.head), self.copy(v.tail), v.or_empty
        elif t is ListV:
            out = ListV(None, None, v.length, v.name)
            self.done[key] = out
            out.items, out.elem, out.upto = self.copy(v.items), self.copy(v.elem), self.copy(v.upto)
        else:  # a DictV (survey admits no other kind)
            out = DictV({}, v.open, exact=v.exact, written_elsewhere=v.written_elsewhere)
            self.done[key] = out
            out.items, out.elem = self.copy(v.items), self.copy(v.elem)
        for name, extra in vars(v).items():  # what is set beside the fields (a layer's `label`)
            if name not in vars(out):
                setattr(out, name, self.copy(extra))
        return out


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
