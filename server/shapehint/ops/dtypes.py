"""PyTorch's type promotion, on dtype names ("float32", "int64", ...; None = unknown).

`promote(a, b)` is `torch.promote_types`; `result_type(*operands)` is `torch.result_type`
over tensors and Python scalars: a Python scalar (and a 0-D tensor) only lifts the result to a
higher *category* (bool < integer < floating < complex), never to a wider type of the same one
(`int64 * 0.5` is float32, `float16 * 2.0` stays float16, `float32 + float64 0-D` stays float32).
Where a dtype the answer depends on is unknown, so is the answer: a guessed dtype would turn
into a false dtype clash downstream (`x.long() / 2` is float, and a matmul with it is fine).
Tests: tests/ops/test_dtypes.py compares with torch.promote_types / torch.result_type.
"""
from __future__ import annotations

from itertools import product
from typing import Optional

from ..shapes.values import BoolV, FloatV, IntV, TensorV, Value

BOOL = "bool"
# signed integers by width; uint8 promotes with a signed type to the next signed width
SIGNED = ("int8", "int16", "int32", "int64")
INTEGRAL = ("uint8",) + SIGNED
FLOATING = ("float16", "bfloat16", "float32", "float64")
COMPLEX = ("complex32", "complex64", "complex128")
KNOWN = (BOOL,) + INTEGRAL + FLOATING + COMPLEX
DEFAULT_FLOAT = "float32"  # torch.get_default_dtype() unless the program changes it
_COMPLEX_OF = {"float16": "complex32", "bfloat16": "complex64", "float32": "complex64", "float64": "complex128"}
# what torch.complex and view_as_complex make of a real dtype (no complex of bfloat16 there,
# unlike type promotion)
COMPLEX_OF_PARTS = {"float32": "complex64", "float64": "complex128", "float16": "complex32"}
_REAL_OF = {"complex32": "float16", "complex64": "float32", "complex128": "float64"}


def category(dt: str) -> int:
    """0 bool, 1 integer, 2 floating, 3 complex."""
    return 0 if dt == BOOL else 1 if dt in INTEGRAL else 2 if dt in FLOATING else 3


def is_floating(dt: Optional[str]) -> bool:
    return dt in FLOATING


def is_integral(dt: Optional[str], include_bool: bool = True) -> bool:
    return dt in INTEGRAL or (include_bool and dt == BOOL)


def is_complex(dt: Optional[str]) -> bool:
    return dt in COMPLEX


def promote(a: Optional[str], b: Optional[str]) -> Optional[str]:
    """torch.promote_types(a, b); None when either is unknown."""
    if a not in KNOWN or b not in KNOWN:
        return None
    if a == b:
        return a
    ca, cb = category(a), category(b)
    if ca != cb:
        lo, hi = (a, b) if ca < cb else (b, a)
        if category(hi) == 3 and category(lo) == 2:  # float64 with complex64 is complex128
            return _COMPLEX_OF[_wider_float(lo, _REAL_OF[hi])]
        return hi
    if ca == 1:
        if "uint8" in (a, b):
            other = b if a == "uint8" else a
            return "int16" if other == "int8" else other
        return max(a, b, key=SIGNED.index)
    if ca == 2:
        return _wider_float(a, b)
    return _COMPLEX_OF[_wider_float(_REAL_OF[a], _REAL_OF[b])]


def _wider_float(a: str, b: str) -> str:
    if {a, b} == {"float16", "bfloat16"}:
        return "float32"
    return max(a, b, key=FLOATING.index)


def _combine(higher: Optional[str], lower: Optional[str]) -> Optional[str]:
    """c10's combine_categories: `lower` (0-D tensors, scalars) only matters past `higher`'s category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if is_complex(higher):
        return higher
    if is_complex(lower):
        return _COMPLEX_OF[higher] if is_floating(higher) else lower
    if is_floating(higher):
        return higher
    if higher == BOOL or is_floating(lower):
        return promote(higher, lower)
    return higher


def scalar_dtype(v) -> Optional[str]:
    """A Python scalar's dtype as an operand (a wrapped number), as `torch.full` also takes it
    from its fill value: None when `v` is not one (or its kind, int or float, is not known)."""
    if isinstance(v, bool) or isinstance(v, BoolV):
        return BOOL
    if isinstance(v, int) or isinstance(v, IntV):
        return "int64"
    if isinstance(v, float) or isinstance(v, FloatV):
        return DEFAULT_FLOAT
    if isinstance(v, complex):
        return "complex64"
    return None


def result_type(*operands) -> Optional[str]:
    """torch.result_type over tensors (`TensorV`) and Python scalars; other operands (None, a
    list) are skipped. None when the answer depends on something unknown: a tensor's dtype, or
    whether a tensor of unknown rank is 0-D when that would change the answer."""
    dims, zeros, wrapped, open_rank = [], [], [], []
    for v in operands:
        if isinstance(v, TensorV):
            if v.dtype not in KNOWN:
                return None
            r = v.shape.rank
            if r is None and v.shape.min_rank == 0:
                open_rank.append(v.dtype)
            else:
                (zeros if r == 0 else dims).append(v.dtype)
        else:
            s = scalar_dtype(v)
            if s is not None:
                wrapped.append(s)
    answers = set()
    for choice in product((True, False), repeat=len(open_rank)):
        d = dims + [dt for dt, has_dims in zip(open_rank, choice) if has_dims]
        z = zeros + [dt for dt, has_dims in zip(open_rank, choice) if not has_dims]
        answers.add(_combine(_fold(d), _combine(_fold(z), _fold(wrapped))))
        if len(answers) > 1:
            return None
    return answers.pop() if answers else None


def _fold(dts: list) -> Optional[str]:
    out = None
    for dt in dts:
        out = dt if out is None else promote(out, dt)
    return out


def to_float(dt: Optional[str]) -> Optional[str]:
    """The dtype of an op that computes in floating point (true division, `sqrt`, `sigmoid`,
    `mean` with a dtype): integers and bool become the default float type."""
    if dt is None:
        return None
    return DEFAULT_FLOAT if is_integral(dt) else dt


def of_operand(v: Value) -> Optional[str]:
    """The dtype an operand contributes (a tensor's, or a Python scalar's)."""
    if isinstance(v, TensorV):
        return v.dtype
    return scalar_dtype(v)
