"""Methods of strings the program knows (`arch.startswith("b")`, `name.replace(".", "_")`):
Python's own, so a factory that picks its settings by name takes only that name's arm."""
from __future__ import annotations

import ast
from typing import Callable, Optional

from ..shapes.expr import Expr
from ..shapes.shape import FALSE, TRUE
from ..shapes.values import BoolV, IntV, ListV, StrV, TupleV, Value

# methods with no effect and a result of a kind the domain has (bool, int, str, list of str)
_PURE = {"startswith", "endswith", "replace", "lower", "upper", "strip", "lstrip", "rstrip", "split",
         "rsplit", "isdigit", "isalpha", "isalnum", "find", "rfind", "count", "join", "removeprefix",
         "removesuffix", "partition", "capitalize", "title", "zfill"}


def str_method(s: str, name: str, args: list, kwargs: dict) -> Optional[Value]:
    """The result of `s.name(*args, **kwargs)` when every argument is known, else None."""
    if name not in _PURE:
        return None
    plain = [_plain(a) for a in args]
    named = {k: _plain(v) for k, v in kwargs.items()}
    if any(p is _UNKNOWN for p in plain) or any(p is _UNKNOWN for p in named.values()):
        return None
    try:
        out = getattr(s, name)(*plain, **named)
    except (TypeError, ValueError):
        return None
    return _value(out)


_UNKNOWN = object()


def _plain(v: Value):
    if isinstance(v, StrV) and v.value is not None:
        return v.value
    if isinstance(v, IntV) and v.expr.value is not None:
        return v.expr.value
    if isinstance(v, (TupleV, ListV)) and v.items is not None:
        items = [_plain(i) for i in v.items]
        if any(i is _UNKNOWN or not isinstance(i, str) for i in items):
            return _UNKNOWN
        return tuple(items) if isinstance(v, TupleV) else items
    return _UNKNOWN


def _value(out) -> Optional[Value]:
    if isinstance(out, bool):
        return BoolV(TRUE if out else FALSE)
    if isinstance(out, int):
        return IntV(Expr.const(out))
    if isinstance(out, str):
        return StrV(out)
    if isinstance(out, (list, tuple)) and all(isinstance(i, str) for i in out):
        items = [StrV(i) for i in out]
        return ListV(items) if isinstance(out, list) else TupleV(tuple(items))
    return None


def formatted(node: ast.JoinedStr, value_of: Callable) -> StrV:
    """An f-string: names built in loops (`f"layer{i}"` for `getattr(self, ...)`, `add_module`) are
    known when every part is (`value_of(expr)`: the part's Python value, or None); a format spec or
    a conversion other than str's leaves it unknown."""
    parts = []
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            parts.append(part.value)
            continue
        if not isinstance(part, ast.FormattedValue) or part.format_spec is not None or part.conversion not in (-1, 115):
            return StrV(None)
        v = value_of(part.value)
        if v is None:
            return StrV(None)
        parts.append(str(v))
    return StrV("".join(parts))
