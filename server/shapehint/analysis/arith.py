"""Python arithmetic on the values the analysis knows: ints stay symbolic `Expr`s, floats and
strings are Python's own (split from evaluator.py)."""
from __future__ import annotations

import ast
import math
import operator
from typing import Optional

from ..shapes.expr import Expr, emax
from ..shapes.shape import ge, le
from ..shapes.shape import is_dyn
from ..shapes.values import FloatV, IntV, StrV, UnknownV, Value
from .objects import OpaqueV
from .operands import configured


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



def abs_value(v, facts) -> Value:
    """`abs(v)` of a number: `abs(h - w)` is `h - w` only where the facts prove it never negative
    (it was taken as `h - w` on every path), else the larger of it and its negation."""
    if isinstance(v, IntV) and v.expr.value is not None:
        return IntV(Expr.const(abs(v.expr.value)))
    if isinstance(v, IntV):
        if facts is not None and facts.entails(ge(v.expr, 0)):
            return v
        if facts is not None and facts.entails(le(v.expr, 0)):
            return IntV(-v.expr)
        return IntV(emax(v.expr, -v.expr))
    if isinstance(v, FloatV) and v.value is not None:
        return FloatV(abs(v.value))
    return FloatV(None)


def math_constant(path: str) -> Optional[FloatV]:
    """`math.pi` (and `e`, `tau`, `inf`, `nan`) as the float it is: `2 * math.pi / inv_freq` is
    a number times a tensor, which keeps the tensor's shape."""
    if path in ("math.pi", "math.e", "math.tau", "math.inf", "math.nan"):
        return FloatV(getattr(math, path[5:]))
    return None


def python_value(v):
    """The Python int, float or str a value is known to be, else None."""
    if isinstance(v, IntV):
        return v.expr.value
    if isinstance(v, (FloatV, StrV)):
        return v.value
    return None



def float_binop(op, a, b, as_int) -> Value:
    """`a op b` where one side is a float: Python's own on known numbers, else the quotient of
    two ints it exactly rounds, when it is one (so `int(planes * (width / 64.0))` can be
    `planes*width//64`). The other side may be an int's symbol (`OpaqueV.kind == "int"`: an
    int-annotated parameter), which `as_int` reads; any other opaque value may be a tensor
    (an unannotated parameter), so the operation is then unknown — except a configuration's
    (`config.rope_theta * 0.5`, operands.py): a number, never a tensor, so with a float a float."""
    a, b = (v if isinstance(v, (IntV, FloatV)) else
            _as_intv(as_int(v)) if getattr(v, "kind", None) == "int" else
            FloatV() if isinstance(v, OpaqueV) and configured(v.path) else None for v in (a, b))
    if a is None or b is None:
        return UnknownV("binop")
    known = float_op(op, a, b)
    if known is not None:
        return FloatV(known)
    return FloatV(None, quotient=_float_quotient(op, a, b))


def _as_intv(e: Optional[Expr]) -> Optional[IntV]:
    return IntV(e) if e is not None else None


# a quotient's divisor up to which float constants are read as fractions (`0.25` as 1/4): a
# larger one would print as noise, not as the size the user wrote
_MAX_DENOMINATOR = 1 << 16


def _dyadic(c: float) -> Optional[tuple]:
    """A float constant as the fraction (numerator, denominator) it exactly is, when small."""
    n, d = c.as_integer_ratio()
    return (n, d) if d <= _MAX_DENOMINATOR and abs(n) <= _MAX_DENOMINATOR else None


def _exact(v) -> Optional[tuple]:
    """The fraction (int Expr, power-of-two int) a value equals exactly, when it does: an int is
    itself over 1, a float constant its dyadic fraction, a quotient by a power of two is exact
    (dividing by one only shifts the exponent)."""
    if isinstance(v, IntV):
        return v.expr, 1
    if isinstance(v, FloatV) and v.value is not None:
        nd = _dyadic(v.value)
        return (Expr.const(nd[0]), nd[1]) if nd else None
    if isinstance(v, FloatV) and v.quotient is not None:
        a, b = v.quotient
        if b.value is not None and b.value > 0 and b.value & (b.value - 1) == 0:
            return a, b.value
    return None


def _float_quotient(op, a, b) -> Optional[tuple]:
    """(numerator, divisor) Exprs whose true quotient Python's float result is the one rounding
    of, else None. A product or sum of exact fractions is rounded once; a division of an exact
    fraction by an int constant is rounded once. Two roundings (`k * (a / 3)`) give no quotient:
    `int(49 * (1 / 49))` is 0, not 1."""
    x, y = _exact(a), _exact(b)
    if op is ast.Div and x is not None and isinstance(b, (IntV, FloatV)):
        c = b.expr.value if isinstance(b, IntV) else b.value
        if c is not None and c == int(c) and c > 0:
            return x[0], Expr.const(x[1] * int(c))
        return None
    if x is None or y is None:
        return None
    (n1, d1), (n2, d2) = x, y
    if op is ast.Mult:
        return n1 * n2, Expr.const(d1 * d2)
    if op in (ast.Add, ast.Sub):
        num = n1 * Expr.const(d2) + (n2 * Expr.const(d1) if op is ast.Add else -(n2 * Expr.const(d1)))
        return num, Expr.const(d1 * d2)
    return None


def floor_quotient(v, ceil: bool = False) -> Optional[Expr]:
    """`math.floor` (or `math.ceil`) of a float known as a quotient: by a positive constant, or
    of two ints by an int not known (`math.ceil(out_chs / ratio)`), whose floor is Python's `//`
    and whose ceiling is `-(-a // b)` whatever the divisor's sign (a zero one raised at `/`)."""
    if not isinstance(v, FloatV) or v.quotient is None:
        return None
    a, b = v.quotient
    if b.value is None:
        if is_dyn(b):
            # a divisor no name holds (a join of paths that disagree) shows the result as `?`
            # anyway, and proofs over a floor by it cost seconds of solver time each (a padded
            # window `math.ceil(H / ws) * ws` then sliced: 30 s on one model): a fresh int instead
            return None
        return -((-a) // b) if ceil else a // b
    if b.value < 1:
        return None
    return (a + (b - 1)) // b if ceil else a // b


def round_quotient(v) -> Optional[Expr]:
    """`round()` of a float known as a quotient by an odd constant: no tie is possible there
    (a tie is k + 1/2, which needs an even divisor), so it is the floor of q + 1/2 whichever way
    Python breaks ties."""
    if not isinstance(v, FloatV) or v.quotient is None:
        return None
    a, b = v.quotient
    if b.value is None or b.value < 1 or b.value % 2 == 0:
        return None
    return (2 * a + b) // (2 * b)


def float_op(op, a, b) -> Optional[float]:
    def val(v):
        if isinstance(v, FloatV):
            return v.value
        return float(v.expr.value) if v.expr.value is not None else None
    x, y = val(a), val(b)
    fn = _FLOAT_OPS.get(op)
    if x is None or y is None or fn is None:
        return None
    try:
        got = fn(x, y)
    except (ZeroDivisionError, OverflowError):
        return None
    return got if isinstance(got, float) else None  # (`(-8.0) ** (1 / 3)` is complex)


# Python's own on two floats; an int operand is converted first, as Python does
_FLOAT_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}


def exact_root(e: Expr) -> Optional[Expr]:
    """`r` with `r*r == e` when `e` is one term whose coefficient is a square and whose atoms
    each appear an even number of times (`math.sqrt(p**2)` for an attention's `max_seq_len =
    partition_size**2`); None otherwise. The root of sizes, which are not negative."""
    if len(e.terms) != 1:
        return None
    (mono, coef), = e.terms.items()
    root = int(coef ** 0.5) if coef > 0 else -1
    while root * root > coef:
        root -= 1
    while (root + 1) * (root + 1) <= coef:
        root += 1
    if coef <= 0 or root * root != coef or len(mono) % 2:
        return None
    if any(mono[i] != mono[i + 1] for i in range(0, len(mono), 2)):
        return None  # (a monomial's atoms are sorted: a square's come in equal pairs)
    return Expr({mono[::2]: root})
