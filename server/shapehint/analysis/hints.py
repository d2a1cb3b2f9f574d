"""Ordinary typing annotations are hints (issue 28, cause 3): only shape annotations (jaxtyping,
TensorType, asserts) are facts. A hint that says "a tuple of one tensor"
(`hidden_states: Optional[tuple[torch.FloatTensor]]`, as GPT-2's blocks write) on a parameter
the body never reads as a sequence is taken for what the body does with it: the tensor its
callers pass, so the function's own analysis is the one its calls make, not a tuple no caller
gives. A hint the body does read as a sequence (`h[0]`, `for t in h`, `a, b = h`, `len(h)`)
keeps its meaning."""
from __future__ import annotations

import ast
from typing import Callable, Optional

from ..shapes.values import ExtRef, Value
from .annotations import is_none, union_members, unstring

TENSOR_TYPES = {"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.BoolTensor", "torch.HalfTensor",
                "torch.DoubleTensor", "torch.IntTensor", "torch.ByteTensor", "torch.BFloat16Tensor"}
TUPLES = {"tuple", "Tuple"}
SEQUENCE_CALLS = {"len", "list", "tuple", "zip", "enumerate", "iter", "reversed", "sorted", "map", "next"}


def _tuple_of_one_tensor(node: ast.AST, resolve: Callable[[ast.AST], Value]) -> bool:
    if not isinstance(node, ast.Subscript):
        return False
    base = node.value
    name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else None
    if name not in TUPLES or isinstance(node.slice, ast.Tuple):
        return False  # (`tuple[Tensor, Tensor]`, `tuple[Tensor, ...]`: really tuples)
    t = resolve(node.slice)
    return isinstance(t, ExtRef) and t.path in TENSOR_TYPES


def hint_of_one_tensor(annotation: Optional[ast.AST], resolve: Callable[[ast.AST], Value]) -> bool:
    """`tuple[Tensor]`, `Optional[tuple[torch.FloatTensor]]`: a tuple of one tensor, maybe None."""
    node = unstring(annotation)
    if node is None or not any(isinstance(n, ast.Name) and n.id in TUPLES or isinstance(n, ast.Attribute)
                               and n.attr in TUPLES for n in ast.walk(node)):
        return False  # (no tuple spelled: nothing evaluated, most annotations)
    members = union_members(node, resolve)
    rest = [m for m in members if not is_none(m)] if members is not None else [node]
    return len(rest) == 1 and _tuple_of_one_tensor(rest[0], resolve)


def read_as_sequence(fn: ast.FunctionDef, name: str) -> bool:
    """Whether `fn` reads `name` as a sequence: indexed, iterated, unpacked, starred, or given to
    len/zip/list/... (kept on the node: parsed trees are never changed)."""
    cache = getattr(fn, "_shapehint_sequences", None)
    if cache is None:
        cache = fn._shapehint_sequences = _sequence_names(fn)
    return name in cache


def _sequence_names(fn: ast.FunctionDef) -> set:
    def named(e) -> Optional[str]:
        return e.id if isinstance(e, ast.Name) else None

    out: set = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript):
            out.add(named(node.value))
        elif isinstance(node, (ast.For, ast.comprehension)):
            out.add(named(node.iter))
        elif isinstance(node, ast.Starred):
            out.add(named(node.value))
        elif isinstance(node, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets):
            out.add(named(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SEQUENCE_CALLS:
            out.update(named(a) for a in node.args)
    out.discard(None)
    return out
