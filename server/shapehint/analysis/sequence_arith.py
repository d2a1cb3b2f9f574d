"""Arithmetic on sequences of sizes and values: `shape[:-1] + (h, d)`, `[None] * n_layers`,
`outputs + (weights,)` where `outputs` has different lengths on different paths.

Python's own semantics for tuples and lists, on the analysis' values; an operation these do not
decide is left to the caller (None).
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

from ..shapes.values import IntV, ListV, NoneV, StarSizeV, TupleV, UnknownV, Value
from .objects import OpaqueV, SizedHyperparameterV
from .typetests import class_or_function
from . import open_tuples, sizes


def sequence_binop(op, a: Value, b: Value, join_values: Callable, size_int: Callable) -> Optional[Value]:
    """`a op b` when it is an operation on sequences; None when it is not."""
    if op is ast.Add and isinstance(a, TupleV) and isinstance(b, TupleV):
        return TupleV(a.items + b.items, a.is_size or b.is_size)
    if op is ast.Add and (isinstance(a, open_tuples.OpenTupleV) or isinstance(b, open_tuples.OpenTupleV)):
        return open_tuples.added(a, b)
    if op is ast.Add and (isinstance(a, StarSizeV) or isinstance(b, StarSizeV)):
        return sizes.added(a, b, size_int) or UnknownV("size")  # `x.size()[:-1] + (h, d)`
    if op is ast.Add and isinstance(a, ListV) and isinstance(b, ListV) and a.items is not None and b.items is not None:
        return ListV(a.items + b.items)
    if op is ast.Add and isinstance(a, ListV) and isinstance(b, ListV):
        return _of_unknown_length(a, b, join_values)
    if op is ast.Mult and isinstance(a, (ListV, TupleV)) and isinstance(b, IntV) and b.expr.value is not None \
            and a.items is not None and b.expr.value <= 64:
        items = list(a.items) * b.expr.value
        return ListV(items) if isinstance(a, ListV) else TupleV(tuple(items))
    if op is ast.Mult and isinstance(a, ListV) and a.items and isinstance(b, (IntV, OpaqueV, SizedHyperparameterV)):
        return ListV(None, join_values(list(a.items)))  # `[None] * n_layers`, n not known
    if op is ast.Mult and isinstance(a, ListV) and a.items and all(_only_repeated(i) for i in a.items) \
            and type(b) is UnknownV:
        # `[None] * self.config.num_layers` with a config a library base set, lost, or
        # `[token_mixer] * len(depths)` of a tuple of unknown length: a list of Nones, classes or
        # functions only repeats (no tensor or number takes one in its `__rmul__`), so in a
        # program that runs the count is an int and every item is one of these
        return ListV(None, join_values(list(a.items)))
    return None


def _of_unknown_length(a: ListV, b: ListV, join_values: Callable) -> Optional[ListV]:
    """`a + b`, one of them of unknown length (`to_cat + [x]`, `to_cat` filled on paths that
    differ, arm_lists.py): a list of unknown length, each item one of theirs, so its item is the
    join of theirs; None for a list held by its length or its loop (grown, a parameter's)."""
    if not all(v.grown is None and v.if_length is None and v.name is None for v in (a, b)):
        return None
    items = [i for v in (a, b) for i in (v.items if v.items is not None else [v.elem])]
    if any(i is None for i in items):
        return None
    return ListV(None, join_values(items)) if items else None


def _only_repeated(item: Value) -> bool:
    return isinstance(item, NoneV) or class_or_function(item)
