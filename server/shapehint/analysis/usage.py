"""How an unannotated parameter is used: as a tensor, or as an opaque object/int.

`def _make_layer(self, block, planes, blocks, stride=1)` must not turn `block` or `blocks`
into tensors: a parameter that is called, iterated with `range`, or read through attributes
that no tensor has is opaque; everything else is assumed to be a tensor.
"""
from __future__ import annotations

import ast

from ..frontend.walk import walk
from ..ops import registry

TENSOR_ATTRS = {"shape", "dtype", "device", "ndim", "T", "mT", "data", "grad", "size", "dim", "is_cuda"}
INT_CALLS = {"range", "int", "len"}
# tensor factories whose bounds are numbers (`torch.arange(query_length)` in HF T5's bias)
INT_METHOD_CALLS = {"arange"}


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

    for node in walk(fn):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in INT_METHOD_CALLS:
                for a in {a.id for a in node.args if isinstance(a, ast.Name)}:
                    count(a, False)
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


def handed_back(fn: ast.AST) -> set:
    """Names whose values `fn` returns: a `return` of the name, or of a tuple or list holding it,
    directly or through a variable it builds that way (`outputs = (out, bias)`, `return outputs`).
    An optional input the function computes when omitted and hands back (a shared bias, a cache)
    is one its callers feed in again."""
    got = getattr(fn, "_shapehint_handed_back", None)
    if got is not None:
        return got
    returned = {n for r in walk(fn) if isinstance(r, ast.Return) and r.value is not None
                for n in _held(r.value)}
    builds = [(t.id, a.value) for a in walk(fn) if isinstance(a, ast.Assign)
              for t in a.targets if isinstance(t, ast.Name)]
    grew = True
    while grew:
        more = {n for name, value in builds if name in returned for n in _held(value)} - returned
        returned |= more
        grew = bool(more)
    fn._shapehint_handed_back = returned
    return returned


def _held(value: ast.expr) -> set:
    """The names `value` is or holds as items (`(a, b)`, `[a]`, `outs + (c,)`)."""
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, (ast.Tuple, ast.List)):
        return {n for e in value.elts for n in _held(e.value if isinstance(e, ast.Starred) else e)}
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and \
            any(isinstance(s, (ast.Tuple, ast.List)) for s in (value.left, value.right)):
        return _held(value.left) | _held(value.right)  # (a tuple grown; `x + y` of tensors is no tuple)
    return set()
