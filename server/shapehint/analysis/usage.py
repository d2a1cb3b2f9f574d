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
    tensor, opaque = _name_uses(fn).get(name, (0, 0))
    return "opaque" if opaque and not tensor else "tensor"


def _name_uses(fn: ast.FunctionDef) -> dict:
    """name -> (tensor uses, opaque uses) in `fn`, from one walk, kept on the node (parsed
    trees are never changed): every parameter of every analysis asks."""
    got = getattr(fn, "_shapehint_uses", None)
    if got is not None:
        return got
    uses: dict = {}

    def count(name: str, as_tensor: bool) -> None:
        t, o = uses.get(name, (0, 0))
        uses[name] = (t + 1, o) if as_tensor else (t, o + 1)

    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                count(node.func.id, False)
                if node.func.id in INT_CALLS:
                    for a in {a.id for a in node.args if isinstance(a, ast.Name)}:
                        count(a, False)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            count(node.value.id, node.attr in TENSOR_ATTRS or registry.has_method(node.attr))
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and _reverses(node.slice):
            count(node.value.id, False)  # `idx[::-1]`: a sequence (a tensor rejects a negative step)
    fn._shapehint_uses = uses
    return uses


def _reverses(index: ast.expr) -> bool:
    step = index.step if isinstance(index, ast.Slice) else None
    return isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and isinstance(step.operand, ast.Constant)


def tensor_uses(fn: ast.AST) -> set:
    """Names `fn` reads through a tensor attribute or method (`mask.dim()`, `labels.view(-1)`):
    positive evidence of a tensor. Arithmetic and comparisons are not (`n * 2`, `n > 0` are
    just as likely ints), so an optional flag (`return_dict=None`) is never taken for one."""
    return {name for name, (tensor, _) in _name_uses(fn).items() if tensor}  # (the same walk, kept)


def tensor_names(functions) -> set:
    """Names some function of the module uses as a tensor: an optional argument of such a name
    (`mask=None`) is an optional tensor input even where it is only passed on."""
    out = set()
    for f in functions:
        out |= tensor_uses(f.node)
    return out
