"""Unpacking a slice of a shape of unknown rank (issue 28, cause 1): `batch_size, seq_length =
hidden_states.shape[:2]` on an unannotated `hidden_states`.

The slice alone has min(rank, 2) items, so it is no tuple of two; but a path that gets past the
unpacking had exactly two, so the rank is at least 2 there and the names are the sizes of axes 0
and 1 — what `hidden_states.shape[0]` and `hidden_states.shape[1]` read. Slices with constant
bounds that count from the same end are understood (`[:2]`, `[1:3]`, `[-2:]`); others stay as
they were.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.values import TupleV, Value


def unpacked_slice(targets: list, node: ast.expr, v: Value, eval_node) -> Value:
    """`v`, the value of `node` unpacked to `targets`, or the tuple of the axes' sizes when
    `node` slices the shape of a tensor whose rank the analysis does not know."""
    if len(targets) != 1 or not isinstance(targets[0], (ast.Tuple, ast.List)) or \
            isinstance(v, TupleV) and v.items is not None:
        return v
    n = len(targets[0].elts)
    if any(isinstance(e, ast.Starred) for e in targets[0].elts):
        return v
    got = _sliced_shape(node)
    if got is None:
        return v
    base, lo, hi = got
    axes = _axes(lo, hi, n)
    if axes is None:
        return v
    items = tuple(eval_node(ast.Subscript(base, ast.Constant(a), ast.Load())) for a in axes)
    return TupleV(items, True)


def _sliced_shape(node: ast.expr) -> Optional[tuple]:
    """(the node whose shape is read, the slice's lower and upper bound) for `x.shape[a:b]`
    and `x.size()[a:b]` with constant bounds (None where omitted) and no step."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Slice) or node.slice.step is not None:
        return None
    base = node.value
    ok = isinstance(base, ast.Attribute) and base.attr == "shape" or \
        isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) and base.func.attr == "size" and \
        not base.args and not base.keywords
    bounds = [_const(b) for b in (node.slice.lower, node.slice.upper)]
    if not ok or any(b is False for b in bounds):
        return None
    return ast.copy_location(base, node), bounds[0], bounds[1]


def _const(b) -> Optional[int] | bool:
    """An omitted bound's None, a constant int bound, else False."""
    if b is None:
        return None
    if isinstance(b, ast.UnaryOp) and isinstance(b.op, ast.USub) and isinstance(b.operand, ast.Constant):
        v = b.operand.value
        return -v if type(v) is int else False
    return b.value if isinstance(b, ast.Constant) and type(b.value) is int else False


def _axes(lo, hi, n: int) -> Optional[list]:
    """The axes of `shape[lo:hi]` when it has exactly `n` items, where that fixes them without
    the rank: both bounds from the start (`[:2]`, `[1:3]`) or both from the end (`[-2:]`)."""
    if (lo is None or lo >= 0) and hi is not None and hi >= 0:
        first = lo or 0
        return list(range(first, hi)) if hi - first == n else None
    if lo is not None and lo < 0 and (hi is None or hi < 0):
        end = 0 if hi is None else hi
        return list(range(lo, end)) if end - lo == n else None
    return None
