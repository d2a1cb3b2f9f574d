"""Python arithmetic on the values the analysis knows: ints stay symbolic `Expr`s, floats and
strings are Python's own (split from evaluator.py)."""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.values import FloatV, IntV, StrV, UnknownV, Value


def int_binop(op, x: Expr, y: Expr) -> Value:
    if op is ast.Add:
        return IntV(x + y)
    if op is ast.Sub:
        return IntV(x - y)
    if op is ast.Mult:
        return IntV(x * y)
    if op is ast.FloorDiv:
        return IntV(x // y) if y.value != 0 else UnknownV("division by zero")
    if op is ast.Mod:
        return IntV(x % y) if y.value != 0 else UnknownV("division by zero")
    if op is ast.Pow and y.value is not None and 0 <= y.value <= 8:
        out = Expr.const(1)
        for _ in range(y.value):
            out = out * x
        return IntV(out)
    if op is ast.Div:
        if x.value is not None and y.value:
            return FloatV(x.value / y.value)
        return FloatV(None, quotient=(x, y))
    return UnknownV("int op")



def python_value(v):
    """The Python int, float or str a value is known to be, else None."""
    if isinstance(v, IntV):
        return v.expr.value
    if isinstance(v, (FloatV, StrV)):
        return v.value
    return None



def float_op(op, a, b) -> Optional[float]:
    def val(v):
        if isinstance(v, FloatV):
            return v.value
        return float(v.expr.value) if v.expr.value is not None else None
    x, y = val(a), val(b)
    if x is None or y is None:
        return None
    try:
        return {ast.Add: x + y, ast.Sub: x - y, ast.Mult: x * y}.get(op) if op is not ast.Div else x / y
    except ZeroDivisionError:
        return None
