"""How an unannotated parameter is used: as a tensor, or as an opaque object/int.

`def _make_layer(self, block, planes, blocks, stride=1)` must not turn `block` or `blocks`
into tensors: a parameter that is called, iterated with `range`, or read through attributes
that no tensor has is opaque; everything else is assumed to be a tensor.
"""
from __future__ import annotations

import ast

from ..ops import registry

TENSOR_ATTRS = {"shape", "dtype", "device", "ndim", "T", "mT", "data", "grad", "size", "dim", "is_cuda"}
INT_CALLS = {"range", "int", "len"}


def param_kind(fn: ast.FunctionDef, name: str) -> str:
    tensor = opaque = 0
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == name:
                opaque += 1
            if isinstance(node.func, ast.Name) and node.func.id in INT_CALLS and \
                    any(isinstance(a, ast.Name) and a.id == name for a in node.args):
                opaque += 1
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
            if node.attr in TENSOR_ATTRS or registry.has_method(node.attr):
                tensor += 1
            else:
                opaque += 1
    return "opaque" if opaque and not tensor else "tensor"


def used_as_tensor(fn: ast.FunctionDef, name: str) -> bool:
    """Positive evidence that `name` holds a tensor somewhere in `fn`: a tensor attribute or
    method, arithmetic or a value comparison, or indexing. `def forward(self, x, mask=None)`
    uses `mask` so; `def f(x, dim=None)` does not."""
    def is_name(n) -> bool:
        return isinstance(n, ast.Name) and n.id == name
    for node in ast.walk(fn):
        if isinstance(node, ast.Attribute) and is_name(node.value) and \
                (node.attr in TENSOR_ATTRS or registry.has_method(node.attr)):
            return True
        if isinstance(node, ast.BinOp) and (is_name(node.left) or is_name(node.right)):
            return True
        if isinstance(node, ast.Subscript) and is_name(node.value):
            return True
        if isinstance(node, ast.Compare) and any(is_name(n) for n in [node.left, *node.comparators]) and \
                not all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            return True
    return False
