"""Methods of strings the program knows (`arch.startswith("b")`, `name.replace(".", "_")`), their
items and slices, their length, `float(s)` and `re`'s pure functions on them: Python's own, so a
factory that picks its settings by name takes only that name's arm, and an architecture spelled
as a string (`'ir_r2_k3_s2_e6_c24'`, decoded by `split`, `op[1:]`, `re.split`, `int`) builds the
layers it names. Anything Python would raise on, or an operand not known, is unknown (None)."""
from __future__ import annotations

import ast
import re
from typing import Callable, Optional

from ..shapes.expr import Expr
from ..shapes.shape import FALSE, TRUE
from ..shapes.values import BoolV, DefaultStrV, FloatV, IntV, ListV, NoneV, SliceV, StrV, TupleV, Value

# methods with no effect and a result of a kind the domain has (bool, int, str, list of str)
_PURE = {"startswith", "endswith", "replace", "lower", "upper", "strip", "lstrip", "rstrip", "split",
         "rsplit", "isdigit", "isalpha", "isalnum", "find", "rfind", "count", "join", "removeprefix",
         "removesuffix", "partition", "capitalize", "title", "zfill", "format", "isnumeric", "isdecimal"}


def str_method(s: str, name: str, args: list, kwargs: dict) -> Optional[Value]:
    """The result of `s.name(*args, **kwargs)` when every argument is known, else None."""
    return _pure_call(getattr(s, name), args, kwargs) if name in _PURE else None


def _pure_call(fn, args: list, kwargs: dict) -> Optional[Value]:
    """`fn(*args, **kwargs)` on the arguments' Python values, when each is known and it returns."""
    plain = [_plain(a) for a in args]
    named = {k: _plain(v) for k, v in kwargs.items()}
    if any(p is _UNKNOWN for p in plain) or any(p is _UNKNOWN for p in named.values()):
        return None
    try:
        out = fn(*plain, **named)
    except (TypeError, ValueError, LookupError, AttributeError, re.error):  # (`'{0.x}'.format(1)`, `'{a}'.format()`)
        return None
    if any(_replaceable(v) for v in list(args) + list(kwargs.values())):
        # (a default callers may replace, `'{}_stem'.format(kind)`: a name read as itself, no decision)
        return DefaultStrV(out) if isinstance(out, str) else None
    return _value(out)


def _replaceable(v: Value) -> bool:
    return isinstance(v, DefaultStrV) or isinstance(v, (TupleV, ListV)) and v.items is not None \
        and any(isinstance(i, DefaultStrV) for i in v.items)


_UNKNOWN = object()

# `re`'s functions whose result is a string or a list of strings (a match object is not a value)
_RE_PURE = {"split", "sub", "findall", "escape"}
# those whose result is a match object or None: only None, the pattern not found, is a value (a
# name tested against a pattern, `re.search(rx, name) is not None`, takes its arm)
_RE_MATCH = {"search", "match", "fullmatch"}


def known(v: Value) -> Optional[str]:
    """The text of a string the program knows, not a default callers may replace (DefaultStrV)."""
    return v.value if isinstance(v, StrV) and not isinstance(v, DefaultStrV) else None


def python_index(idx: Value):
    """The int or slice a known index value is, else None (a bound not known is not an omitted one)."""
    if isinstance(idx, IntV):
        return idx.expr.value
    if not isinstance(idx, SliceV):
        return None
    parts = []
    for p in (idx.start, idx.stop, idx.step):
        if p is None or isinstance(p, NoneV):
            parts.append(None)
        elif isinstance(p, IntV) and p.expr.value is not None:
            parts.append(p.expr.value)
        else:
            return None
    return None if parts[2] == 0 else slice(*parts)


def str_item(s: str, idx: Value) -> Optional[Value]:
    """`s[i]`, `s[a:b]`."""
    i = python_index(idx)
    if i is None or isinstance(i, int) and not -len(s) <= i < len(s):
        return None
    return StrV(s[i])


def str_float(s: str) -> Optional[Value]:
    """`float(s)`: a known string that Python parses (`'0.25'`), else unknown."""
    try:
        return FloatV(float(s))
    except ValueError:
        return None


def re_function(name: str, args: list, kwargs: dict) -> Optional[Value]:
    """`re.split(pattern, s)`, `re.sub(...)`, `re.findall(...)` on known strings and ints;
    `re.search(...)`, `re.match(...)`, `re.fullmatch(...)` that find nothing there: None."""
    if name in _RE_MATCH:
        found = _pure_call(lambda *a, **k: getattr(re, name)(*a, **k) is None, args, kwargs)
        return NoneV() if isinstance(found, BoolV) and found.pred is TRUE else None
    return _pure_call(getattr(re, name), args, kwargs) if name in _RE_PURE else None


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
