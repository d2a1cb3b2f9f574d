"""Results that are a tuple on some paths and an output object on others: `if not return_dict:
return tuple(v for v in [hidden, cache, attn] if v is not None)` else `return Output(hidden, ...)`,
under a flag the analysis cannot decide. Their join was unknown, so the caller's
`outputs[0]` — the hidden states the next stage reads — was lost with everything after it.

The join is a `TupleOrOutputV`, unknown to every other use (a layer that is a tuple on another
path is not one: calling it stays what it was), holding the options. An index by a
constant reads it from each (a tuple's item, an open tuple's head, the object's `__getitem__`
as any index of it is); where every option gives a value their join is the answer, else it is
unknown, never a guess."""
from __future__ import annotations

from typing import Optional

from ..shapes.values import IntV, TupleV, UnknownV, Value
from .objects import OpenTupleV, TupleOrOutputV
from .records import is_field_mapping
from . import open_tuples


def _tuple(v: Value) -> bool:
    return isinstance(v, OpenTupleV) or isinstance(v, TupleV) and v.items is not None and not v.is_size


def joined(vals: list) -> Optional[TupleOrOutputV]:
    """The join of tuples and output objects (records.py; at least one of each); else None."""
    flat = [o for v in vals for o in (v.options if isinstance(v, TupleOrOutputV) else (v,))]
    if not all(_tuple(v) or is_field_mapping(v) for v in flat):
        return None
    if not any(is_field_mapping(v) for v in flat) or not any(_tuple(v) for v in flat):
        return None
    return TupleOrOutputV("a tuple or an output object", tuple(flat))


def item(v: TupleOrOutputV, idx: Value, read, join) -> Value:
    """`v[idx]` for a constant `idx`: each option's item (`read(option, idx)`), joined when every
    option gives one."""
    if not (isinstance(idx, IntV) and idx.expr.value is not None):
        return UnknownV("subscript")
    got = [open_tuples.item(o, idx) if isinstance(o, OpenTupleV) else read(o, idx) for o in v.options]
    if any(isinstance(g, UnknownV) for g in got):
        return UnknownV("subscript")
    return join(got)
