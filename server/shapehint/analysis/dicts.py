"""Methods of Python dicts as the analysis holds them (`DictV`): `get`/`pop`/`setdefault` of
known keys, `update`, `items`/`keys`/`values`; an open dict (the generic analysis's `**kwargs`,
one something unknown was put in) may hold keys beyond those known: its `pop(key, default)`
takes a class or callable default, as a keyword parameter it leaves at its default (`_open_default`).
Split from builtins.py.

A dict filled under keys not known, every value seen (`DictV.elem`: `flags[i] = False` for each
layer of a loop of unknown count), read by `get` with a key not known gives one of its values or
the fallback (`any_value`): a test of it is decided where all of them agree (a cache's
`is_updated.get(layer_idx)`, False or None before any layer ran: compare.truth)."""
from __future__ import annotations

from typing import Callable

from ..shapes.values import BoolV, DictV, ExtRef, FloatV, IntV, ListV, NoneV, StrV, TupleV, UnknownV, Value
from .choices import registry_choice
from .objects import ClassObj, FuncObj, MaybeNoneV, PartialV
from . import sized_kwargs


def dict_method(t: DictV, name: str, args: list, join: Callable, own: bool = False) -> Value:
    """A dict's methods; an open one (DictV.open) may hold keys beyond those known. `join`: the
    join of the values several paths give (Comprehensions.join_values); `own`: the analysed
    file's code reads it (`_absent_in_sizes`)."""
    key = args[0].value if args and isinstance(args[0], StrV) else None
    if name in ("get", "pop", "setdefault") and key is not None:
        if key in t.items:
            return t.items.pop(key) if name == "pop" else t.items[key]
        if t.open and own and t.open is sized_kwargs.SIZES:
            return _absent_in_sizes(t, name, key, args)
        if t.open:
            if name == "pop":
                return _open_default(args, t.open)
            if name == "setdefault":
                t.items[key] = UnknownV(name)  # whatever it held, or the default: unknown
            return UnknownV(name)
        default = args[1] if len(args) > 1 else NoneV()
        if name == "setdefault":
            t.items[key] = default
        return default
    if name == "get" and args and unknown_key(args[0]):
        # a registry read with a key not known, with a fallback: one of them (choices.py)
        picked = registry_choice(t, tuple(args[1:2]))
        if picked is not None:
            return picked
        if t.open and t.elem is not None and not t.written_elsewhere:
            return any_value([*t.items.values(), t.elem, args[1] if len(args) > 1 else NoneV()], join)
    if name in ("get", "pop", "setdefault", "popitem", "clear") or name == "update" and not args:
        t.open = t.open or name != "get"  # an unknown key read or removed: no longer all known
        if name == "setdefault":
            t.elem = None  # (something not known put under a key not known)
        return UnknownV(name)
    if name == "update":
        if isinstance(args[0], DictV):
            t.items.update(args[0].items)
            if args[0].open:
                t.open, t.elem = True, None
        else:
            t.open, t.elem = True, None
        return NoneV()
    if t.open and name in ("items", "keys", "values"):
        return ListV(None)
    if name == "items":
        return ListV([TupleV((StrV(k), v)) for k, v in t.items.items()])
    if name == "keys":
        return ListV([StrV(k) for k in t.items])
    if name == "values":
        return ListV(list(t.items.values()))
    return UnknownV(name)


def of_pairs(items, kwargs: dict, openness) -> DictV:
    """`dict(pairs)`, `dict(zip(names, values))` (and keywords): where every pair is known and its
    key a known string, exactly those keys (a loop's `dict(zip(arg_names, params))` per stage);
    else keys unknown."""
    out = {}
    for item in items if items is not None else [None]:
        if not (isinstance(item, TupleV) and len(item.items) == 2 and isinstance(item.items[0], StrV)
                and item.items[0].value is not None):
            return DictV(dict(kwargs), open=True)
        out[item.items[0].value] = item.items[1]
    return DictV({**out, **kwargs}, open=openness)


def _open_default(args: list, openness) -> Value:
    """`kwargs.pop("norm_layer", partial(nn.BatchNorm2d, eps=1e-5))` of an open `**kwargs`: as a
    keyword parameter the caller's open `**kwargs` leaves at its default (calls.py,
    `open_defaults`), a class or a callable default is the value taken; a number, string or None
    may be replaced, so unknown — except a flag's default where the dict holds sizes only
    (`kwargs.pop('features_only', False)`, sized_kwargs.py)."""
    d = args[1] if len(args) > 1 else None
    if isinstance(d, (ClassObj, FuncObj, PartialV, ExtRef)) or sized_kwargs.keeps_value(openness, d):
        return d
    return UnknownV("pop")


def _absent_in_sizes(t: DictV, name: str, key: str, args: list) -> Value:
    """`kwargs.pop("norm_layer", None)` (or `get`, `setdefault`) in the analysed file's own code,
    of a `**kwargs` that holds sizes only (sized_kwargs.py): the key is not there, so the default.
    devicerun/builders.py counts that context only for builds passing no key the file reads so
    (every string key of a `pop`/`get`/`setdefault` in the file is a flag there), so the key is
    absent in every build the context stands for, whatever the default is (None included:
    `kwargs.pop('norm_layer', None) or partial(nn.BatchNorm2d, ...)` picks the partial). Code of
    other modules is not scanned by builders.py: its reads keep `_open_default`."""
    default = args[1] if len(args) > 1 else NoneV()
    if name == "setdefault":
        t.items[key] = default
    return default


def unknown_key(v: Value) -> bool:
    """A dict key whose value the analysis does not know (a config string, a parameter)."""
    if isinstance(v, StrV):
        return v.value is None
    if isinstance(v, IntV):
        return v.expr.value is None
    return not isinstance(v, (NoneV, BoolV, FloatV, TupleV))


def any_value(vals: list, join: Callable) -> Value:
    """One of `vals`, not known which: their join, None on some of them being an object that may
    be None (MaybeNoneV), whose truth is its other values' when they agree."""
    given = [v for v in vals if not isinstance(v, NoneV)]
    if not given:
        return NoneV()
    joined = join(given)
    if len(given) == len(vals):
        return joined
    return MaybeNoneV("None under some keys", joined)
