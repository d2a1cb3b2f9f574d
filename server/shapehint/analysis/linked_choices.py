"""Choices made under one undecided condition, linked: `stride if down else 1` for one layer and
`1 if down else stride` for the next take the same arm at run time, since `down` is one value,
so the two layers together stride by `stride` whichever it is. Joined on their own, each choice
was some int (comprehensions._joined_int) and the composition unknown.

A choice of two ints whose test is a parameter of the running function — or its negation —
that the function never rebinds, holding a value that cannot change in place (a bool, a number,
a string, None), is `k*a + (1 - k)*b` with `k` that parameter's link symbol for this call: 1
where the test is true, 0 where it is false (a symbol that may be as low as 0, and whose
every value a size derived from it is proved for is 0 or 1 here). An operation's result size
that is the same expression with `k` = 1 and with `k` = 0 is that expression (`settled`): the
composition evaluated on each arm and joined; a size that still differs keeps `k`, a fresh
symbol, so it stays unknown, as before.
"""
from __future__ import annotations

import ast
from dataclasses import replace
from typing import Optional

from ..shapes.shape import Shape
from ..shapes.values import BoolV, FloatV, IntV, NoneV, StrV, TensorV, TupleV, Value
from .objects import OpaqueV

LINK = "?arm"  # the link symbols' prefix: fresh (never a name the reader knows), so unknown on display
IMMUTABLE = (BoolV, IntV, FloatV, StrV, NoneV)
IMMUTABLE_TYPES = ("bool", "int", "float", "str")


def linked(it, fr, node: ast.IfExp, a: Value, b: Value) -> Optional[IntV]:
    """`a if node.test else b`, undecided, as a linked choice; None where it is not one."""
    ea, eb = _int(it, a), _int(it, b)
    if ea is None or eb is None or ea == eb or fr.foreign:
        return None
    test, negated = node.test, False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, not negated
    if not isinstance(test, ast.Name):
        return None
    kept = _kept_params(it.interp.function_named(fr.qualname), node)
    if test.id not in kept or not (kept[test.id] or isinstance(fr.env.get(test.id), IMMUTABLE)):
        return None
    key = (test.id, id(fr.env.get(test.id)))
    k = fr.links.get(key)
    if k is None:
        k = fr.links[key] = it.interp.fresh_symbol(LINK, None, lo=0)
    if negated:
        ea, eb = eb, ea
    return IntV(k * ea + (1 - k) * eb)


def _int(it, v: Value):
    """The int `v` is, as the join of ints takes them (comprehensions.join_values)."""
    return v.expr if isinstance(v, IntV) else it.int_value(v) if isinstance(v, OpaqueV) and v.kind == "int" else None


def _kept_params(f, node: ast.AST) -> dict:
    """The parameters of function `f` (when it holds `node`) that its body never rebinds — each has
    one value throughout a call —, each with whether its annotation is a type whose values never
    change in place (`flag: bool`: its truth is the same wherever it is read)."""
    fn = getattr(f, "node", None)
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
            not fn.lineno <= getattr(node, "lineno", 0) <= (fn.end_lineno or 0):
        return {}
    got = getattr(fn, "_kept_params", None)
    if got is None:
        own = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
        stored = set()
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                stored.add(n.id)
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                stored.update(n.names)
            elif isinstance(n, ast.arg) and not any(n is p for p in own):
                stored.add(n.arg)  # (a nested function's or lambda's parameter of that name)
        got = fn._kept_params = {p.arg: isinstance(p.annotation, ast.Name) and p.annotation.id in IMMUTABLE_TYPES
                                 for p in own if p.arg not in stored}
    return got


def settled(v: Value) -> Value:
    """`v` (a tensor, or a tuple of them) with each size that is the same expression whichever arm
    its link symbols take written as that expression."""
    if isinstance(v, TupleV) and v.items is not None and any(isinstance(i, TensorV) for i in v.items):
        items = tuple(settled(i) for i in v.items)
        return v if all(x is y for x, y in zip(items, v.items)) else replace(v, items=items)
    if not isinstance(v, TensorV) or not any(s.startswith(LINK) for s in v.shape.symbols()):
        return v
    s = v.shape
    return replace(v, shape=Shape(tuple(map(_settled, s.dims)), s.star, tuple(map(_settled, s.suffix))))


def _settled(e):
    for name in sorted(x for x in e.symbols() if x.startswith(LINK)):
        on, off = e.subs({name: 1}), e.subs({name: 0})
        if on == off:
            e = on
    return e
