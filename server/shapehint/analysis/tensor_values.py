"""Small tensors whose elements are computed from constants (issue 27: a network's widths made
with `torch.arange(depth) * slope + w0`, `torch.round(torch.log(...))`, `torch.unique`, then
`.int().tolist()`), evaluated without torch.

A tensor of at most `CAP` elements, rank 0 or 1, made by a creation op from known numbers, keeps
its elements through the operations of `_OPS`; `.tolist()`, `.item()` then give known numbers,
and `torch.unique` a known length. Anything else drops to the ordinary symbolic tensor.

Soundness first: a wrong element is a wrong width, so a wrong shape. torch computes floats in
their dtype (float32 by default), and its transcendental functions are not correctly rounded,
so a float element is an interval [lo, hi] holding every value torch may compute, widened after
each float operation by a few units in the last place of the dtype (more for log/exp/pow); a
Python float scalar counts as itself or its float32 rounding, whichever torch takes. A rounding
(`round`, `floor`, `ceil`, `.int()`) is known only where both ends of the interval give the same
integer, so a value within a few ulps of a boundary (2.4999999) is unknown, never guessed. An
element is a point (lo == hi) only where every method gives the same float: an integer, or an
exact +, -, * of points (`round(x) * 8`), which `unique` needs.

The elements live beside the tensor (`_VALUES`, keyed by the object): a tensor made from it by
any other operation (`dataclasses.replace`, a view, an in-place op) has none, and a tensor with
elements passed to an operation not evaluated here loses them (it may have been written in
place). The rule's output gives the dtype (ops/dtypes.py, tested against torch); the elements
are kept only while the tensor's shape is the one they were computed for.
Tests: tests/unit/test_tensor_values.py (against torch on CPU, random and boundary inputs).
"""
from __future__ import annotations

import math
import struct
import weakref
from dataclasses import replace
from fractions import Fraction
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import Shape
from ..shapes.values import BoolV, FloatV, IntV, ListV, TensorV, TupleV, Value

CAP = 4096
_INTS = ("int8", "int16", "int32", "int64", "uint8")
_FLOATS = ("float32", "float64")
_LIMIT = {"int8": 2 ** 7, "int16": 2 ** 15, "int32": 2 ** 31, "int64": 2 ** 63, "uint8": 2 ** 8}
# relative widening after an operation: exact IEEE ops (a few ulps, as torch may take a Python
# scalar in double or in the tensor's dtype, or divide by a reciprocal) and library functions
_REL = {("float32", False): 2.0 ** -20, ("float32", True): 2.0 ** -16,
        ("float64", False): 2.0 ** -49, ("float64", True): 2.0 ** -44}
_TINY = 1e-30


class GiveUp(Exception):
    pass


class Elems:
    """The elements of one tensor: `dims` () or (n,), `dtype`, items as (lo, hi) pairs."""
    __slots__ = ("dims", "dtype", "items")

    def __init__(self, dims: tuple, dtype: str, items: list):
        self.dims, self.dtype, self.items = dims, dtype, items


_VALUES: "weakref.WeakKeyDictionary[TensorV, Elems]" = weakref.WeakKeyDictionary()


def elements_of(v) -> Optional[Elems]:
    if not isinstance(v, TensorV):
        return None
    e = _VALUES.get(v)
    if e is None or v.dtype != e.dtype or v.shape.rank != len(e.dims):
        return None
    dims = v.shape.dims
    if any(d.value != n for d, n in zip(dims, e.dims)):
        return None
    return e


def _f32(x: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except (OverflowError, struct.error):
        raise GiveUp()


def _cast(x, dtype: str):
    """A number (int or float) as an element of `dtype`: the interval torch may store."""
    if dtype in _INTS:
        if isinstance(x, float) or isinstance(x, bool):
            raise GiveUp()
        if not -_LIMIT[dtype] <= x < _LIMIT[dtype]:
            raise GiveUp()
        return (x, x)
    if dtype == "float32":
        y = _f32(float(x))  # (a large int, as a float, may be taken in double too)
        return (min(x, y), max(x, y))
    if dtype == "float64":
        y = float(x)
        if isinstance(x, int) and y != x:
            raise GiveUp()
        return (y, y)
    raise GiveUp()


def _scalar(v: Value):
    if isinstance(v, IntV):
        c = v.expr.value
        if c is not None:
            return int(c)
    elif isinstance(v, FloatV) and type(v) is FloatV and v.value is not None:
        return float(v.value)
    raise GiveUp()


def _operand(v: Value, n: int, dtype: str) -> list:
    """`v` broadcast to n items of the result's dtype."""
    e = elements_of(v)
    if e is not None:
        if len(e.items) not in (1, n):
            raise GiveUp()
        items = [_recast(p, e.dtype, dtype) for p in e.items]
        return items * n if len(items) == 1 and n != 1 else items
    return [_cast(_scalar(v), dtype)] * n


def _recast(p, src: str, dtype: str):
    if src == dtype:
        return p
    if src in _INTS and dtype in _FLOATS:
        lo, hi = _cast(p[0], dtype), _cast(p[1], dtype)
        return (lo[0], hi[1])
    if src in _INTS and dtype in _INTS:
        return _cast(p[0], dtype)  # within the narrower type's range, else unknown
    raise GiveUp()  # float to int is a rounding: `.int()`


def _widen(lo: float, hi: float, dtype: str, library: bool) -> tuple:
    rel = _REL[(dtype, library)]
    if not (math.isfinite(lo) and math.isfinite(hi)) or max(abs(lo), abs(hi)) > 1e30:
        raise GiveUp()
    return (lo - abs(lo) * rel - _TINY, hi + abs(hi) * rel + _TINY)


def _exact(op, a, b, dtype: str):
    """The point an exact operation on points gives, or None."""
    if a[0] != a[1] or b[0] != b[1]:
        return None
    fa, fb = Fraction(a[0]), Fraction(b[0])
    r = op(fa, fb)
    y = float(r)
    if Fraction(y) != r or (dtype == "float32" and _f32(y) != y):
        return None
    return (y, y)


def _binary(op, a, b, dtype: str, divide: bool = False):
    if dtype in _INTS:
        if divide:
            raise GiveUp()
        r = op(a[0], b[0])
        return _cast(r, dtype)
    if divide and b[0] <= 0 <= b[1]:
        raise GiveUp()
    if divide and b[0] == b[1] and _power_of_two(b[0]):
        p = _exact(op, a, b, dtype)  # by a power of two: exact, however torch divides
    else:
        p = None if divide else _exact(op, a, b, dtype)
    if p is not None:
        return p
    cands = [op(x, y) for x in a for y in b]
    return _widen(min(cands), max(cands), dtype, False)


def _power_of_two(x: float) -> bool:
    f = Fraction(abs(x))
    return all(k > 0 and k & (k - 1) == 0 for k in (f.numerator, f.denominator))


def _monotone(fn, p, dtype: str):
    """An increasing library function on one interval."""
    if dtype not in _FLOATS:
        raise GiveUp()
    try:
        lo, hi = fn(p[0]), fn(p[1])
    except (ValueError, OverflowError):
        raise GiveUp()
    return _widen(lo, hi, dtype, True)


def _rounding(fn, p, dtype: str):
    lo, hi = p
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise GiveUp()
    a, b = fn(lo), fn(hi)
    if a != b:
        raise GiveUp()  # a boundary lies within the interval
    return _cast(a, dtype) if dtype in _INTS else (float(a), float(a))


def _round_half_even(x: float) -> int:
    return round(x)


_ARITH = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
          "div": lambda x, y: x / y}
_NAMES = {"Tensor.__add__": ("add", False), "Tensor.__radd__": ("add", True), "torch.add": ("add", False),
          "Tensor.add": ("add", False), "Tensor.__sub__": ("sub", False), "Tensor.__rsub__": ("sub", True),
          "torch.sub": ("sub", False), "Tensor.sub": ("sub", False), "Tensor.__mul__": ("mul", False),
          "Tensor.__rmul__": ("mul", True), "torch.mul": ("mul", False), "Tensor.mul": ("mul", False),
          "Tensor.__truediv__": ("div", False), "Tensor.__rtruediv__": ("div", True),
          "torch.div": ("div", False), "torch.divide": ("div", False), "Tensor.div": ("div", False),
          "Tensor.divide": ("div", False)}
_UNARY = {"log": lambda x: math.log(x), "exp": lambda x: math.exp(x)}
_ROUNDS = {"round": _round_half_even, "floor": math.floor, "ceil": math.ceil}
_READS = ("Tensor.size", "Tensor.dim", "Tensor.numel", "Tensor.__len__")
_CASTS = {"int": "int32", "long": "int64", "float": "float32", "double": "float64"}


def _short(name: str) -> str:
    return name.split(".", 1)[1] if name.startswith(("torch.", "Tensor.")) else name


def evaluate(name: str, args: list, kwargs: dict, out: Value, journal) -> Value:
    """The rule's `out`, with elements where they follow from the arguments' (called by
    `calls.call_rule` after every rule). Dropping a tensor's elements is an effect in `journal`:
    a call that wrote its argument in place is then not quiet, so the call memo runs a repeat
    of it (given another tensor) rather than answer it, which would leave that one's elements."""
    try:
        got = _evaluate(name, args, kwargs, out)
    except (GiveUp, ArithmeticError, ValueError, TypeError):
        got = None
    if got is None and name not in _READS:
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, TensorV) and _VALUES.pop(a, None) is not None:
                journal.note("tensor_values")  # an operation not followed here may write it in place
        return out
    return out if got is None else got


def _n_of(out: Value) -> Optional[int]:
    if not isinstance(out, TensorV) or out.shape.rank not in (0, 1) or out.dtype is None:
        return None
    if out.shape.rank == 0:
        return 1
    n = out.shape.dims[0].value
    return int(n) if n is not None and 0 <= n <= CAP else None


def _keep(out: TensorV, items: list) -> TensorV:
    dims = tuple(int(d.value) for d in out.shape.dims)
    _VALUES[out] = Elems(dims, out.dtype, items)
    return out


def _evaluate(name: str, args: list, kwargs: dict, out: Value) -> Optional[Value]:
    short = _short(name)
    if name in ("Tensor.tolist", "Tensor.item"):
        e = elements_of(args[0]) if len(args) == 1 and not kwargs else None
        if e is None or (name == "Tensor.item" and len(e.items) != 1):
            return None
        nums = [_number(p, e.dtype) for p in e.items]
        return nums[0] if not e.dims or name == "Tensor.item" else ListV(nums)
    if short == "unique":
        return _unique(args, kwargs, out)
    n = _n_of(out)
    if n is None:
        return None
    dtype = out.dtype
    if name == "torch.arange":
        return _arange(args, kwargs, out, n)
    if name == "torch.tensor":
        return _tensor(args, out, n)
    if name in _NAMES and len(args) == 2 and set(kwargs) <= {"alpha", "rounding_mode"}:
        if kwargs.get("alpha") is not None or kwargs.get("rounding_mode") is not None:
            return None
        op, swapped = _NAMES[name]
        a, b = _operand(args[0], n, dtype), _operand(args[1], n, dtype)
        if swapped:
            a, b = b, a
        if elements_of(args[0]) is None and elements_of(args[1]) is None:
            return None
        return _keep(out, [_binary(_ARITH[op], x, y, dtype, op == "div") for x, y in zip(a, b)])
    if elements_of(args[0] if args else None) is None and short not in ("pow", "__rpow__"):
        return None
    if kwargs:
        return None
    src = elements_of(args[0]) if args else None
    if short in _UNARY and len(args) == 1:
        return _keep(out, [_monotone(_UNARY[short], _recast(p, src.dtype, dtype), dtype) for p in src.items])
    if short in _ROUNDS and len(args) == 1:
        return _keep(out, [_rounding(_ROUNDS[short], p, dtype) for p in src.items])
    if short in ("pow", "__pow__", "__rpow__") and len(args) == 2:
        return _pow(short, args, out, n)
    if short in _CASTS and len(args) == 1 and _CASTS[short] == dtype:
        if src.dtype in _INTS or dtype in _FLOATS:
            items = [_recast(p, src.dtype, dtype) if src.dtype != dtype else p for p in src.items]
        else:
            items = [_rounding(math.trunc, p, dtype) for p in src.items]
        if src.dtype == dtype:
            _VALUES.pop(args[0], None)  # a cast to its own dtype returns the tensor itself
        return _keep(out, items)
    if short == "diff" and len(args) == 1 and src.dims and n == len(src.items) - 1:
        return _keep(out, [_binary(_ARITH["sub"], src.items[i + 1], src.items[i], dtype)
                           for i in range(n)])
    if short == "max" and len(args) == 1 and not out.shape.dims and src.items and src.dtype == dtype:
        return _keep(out, [(max(p[0] for p in src.items), max(p[1] for p in src.items))])
    return None


def _number(p, dtype: str) -> Value:
    if p[0] != p[1]:
        raise GiveUp()
    if dtype in _INTS:
        return IntV(Expr.const(int(p[0])))
    return FloatV(float(p[0]))


def _arange(args, kwargs, out: TensorV, n: int):
    if set(kwargs) - {"dtype", "device", "requires_grad"}:
        return None
    nums = [_scalar(a) for a in args]
    if not nums or any(not isinstance(x, int) for x in nums) or len(nums) > 3:
        return None
    r = range(*nums)
    if len(r) != n:
        return None
    return _keep(out, [_cast(x, out.dtype) for x in r])


def _tensor(args, out: TensorV, n: int):
    if len(args) != 1:
        return None
    data = args[0]
    if out.shape.rank == 0:
        nums = [_scalar(data)]
    elif isinstance(data, (ListV, TupleV)) and data.items is not None and len(data.items) == n:
        nums = [_scalar(i) for i in data.items]
    else:
        return None
    if out.dtype in _INTS and any(isinstance(x, float) for x in nums):
        return None
    # the data is stored in the dtype: a float32 element is the rounded value itself
    return _keep(out, [(_f32(x),) * 2 if out.dtype == "float32" else _cast(x, out.dtype) for x in nums])


def _pow(short: str, args, out: TensorV, n: int):
    dtype = out.dtype
    if dtype not in _FLOATS:
        return None
    base, expo = (args[1], args[0]) if short == "__rpow__" else (args[0], args[1])
    b, x = _operand(base, n, dtype), _operand(expo, n, dtype)
    items = []
    for pb, px in zip(b, x):
        if pb[0] <= 0:
            raise GiveUp()
        cands = [bb ** xx for bb in pb for xx in px]
        items.append(_widen(min(cands), max(cands), dtype, True))
    return _keep(out, items)


def _unique(args, kwargs, out: Value) -> Optional[Value]:
    e = elements_of(args[0]) if args else None
    if e is None or len(args) != 1 or set(kwargs) - {"sorted", "return_counts", "return_inverse"}:
        return None
    if any(_truth(kwargs.get(k), d) is None for k, d in (("sorted", True), ("return_counts", False),
                                                          ("return_inverse", False))):
        return None
    if not _truth(kwargs.get("sorted"), True) or _truth(kwargs.get("return_inverse"), False):
        return None
    if any(p[0] != p[1] for p in e.items):
        return None
    keys = sorted({p[0] for p in e.items})
    counts = [sum(1 for p in e.items if p[0] == k) for k in keys]
    vals = out.items[0] if isinstance(out, TupleV) else out
    if not isinstance(vals, TensorV) or vals.dtype != e.dtype:
        return None
    first = _keep(replace(vals, shape=Shape.of([len(keys)])), [(k, k) for k in keys])
    if not _truth(kwargs.get("return_counts"), False):
        return first
    cnt = out.items[1] if isinstance(out, TupleV) and len(out.items) == 2 else None
    if not isinstance(cnt, TensorV) or cnt.dtype != "int64":
        return None
    return TupleV((first, _keep(replace(cnt, shape=Shape.of([len(keys)])), [(c, c) for c in counts])))


def _truth(v, default) -> Optional[bool]:
    if v is None:
        return default
    p = v.pred if isinstance(v, BoolV) else None
    return None if p is None else True if p.is_true else False if p.is_false else None
