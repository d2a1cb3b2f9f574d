"""Reading shape annotations: `TensorType([...])`/`Dyn` (torch.fx) and jaxtyping.

`TensorType` is recognised by what the name resolves to (torch.fx.tensor_type; torchtyping's
`TensorType` is a different thing and is not read). jaxtyping dimension strings support fixed
sizes, names shared across the parameters of one function, `*batch`, `...`, `_`, `#name`
and simple expressions (`n+1`, `2*c`). Names are symbols of the enclosing analysis.
"""
from __future__ import annotations

import ast
import re
from typing import Callable, Optional

from ..frontend.pyast import parse as parse_ast
from ..shapes.expr import Expr
from ..shapes.shape import Shape
from ..shapes.values import ExtRef, Value

JAXTYPING_DTYPES = {
    "Float": "float32", "Float16": "float16", "Float32": "float32", "Float64": "float64", "BFloat16": "bfloat16",
    "Int": "int64", "Int8": "int8", "Int32": "int32", "Int64": "int64", "Integer": "int64", "UInt8": "uint8",
    "Bool": "bool", "Shaped": None, "Num": None, "Real": None, "Inexact": None, "Complex": "complex",
}
TENSORTYPE_PATHS = {"torch.fx.tensor_type.TensorType", "torch.fx.experimental.graph_gradual_typechecker.TensorType"}
DYN_PATHS = {"torch.fx.tensor_type.Dyn"}
_EXPR_OK = re.compile(r"^[A-Za-z_0-9+\-*/() ]+$")


def is_shape_type(path: str) -> bool:
    """`jaxtyping.Float`, `TensorType`: what, subscripted, spells a shape annotation."""
    return path.startswith("jaxtyping.") and path.rsplit(".", 1)[-1] in JAXTYPING_DTYPES or path in TENSORTYPE_PATHS


class AnnotationReader:
    """Turns annotation AST nodes into shapes. `resolve` maps a node to a Value (names → imports)."""

    def __init__(self, resolve: Callable[[ast.AST], Value], fresh_dyn: Callable[[], Expr],
                 fresh_star: Callable[[], str], hole: Callable[[ast.AST], Expr], follow=None):
        self.resolve = resolve
        self.fresh_dyn = fresh_dyn
        self.fresh_star = fresh_star
        self.hole = hole
        self.follow = follow  # an alias value (objects.ShapeAliasV) -> what its annotation reads as

    def read(self, node: Optional[ast.AST]) -> Optional[tuple[Shape, Optional[str]]]:
        """(shape, dtype) for a tensor annotation, None when it is not one we read."""
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = parse_ast(node.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(node, ast.Call):
            f = self.resolve(node.func)
            if isinstance(f, ExtRef) and f.path in TENSORTYPE_PATHS and node.args:
                return self._tensortype(node.args[0]), None
            return None
        if isinstance(node, ast.Subscript):
            base = self.resolve(node.value)
            if isinstance(base, ExtRef) and base.path.startswith("jaxtyping."):
                kind = base.path.split(".")[-1]
                if kind in JAXTYPING_DTYPES:
                    return self._jaxtyping(node.slice), JAXTYPING_DTYPES[kind]
            if isinstance(base, ExtRef) and base.path in TENSORTYPE_PATHS:
                return self._tensortype(node.slice), None
            return None
        v = self.resolve(node)
        if self.follow is not None and hasattr(v, "globals") and hasattr(v, "node") and not isinstance(v, ExtRef):
            return self.follow(v)  # `x: Batch` with `Batch = Float[Tensor, "B T C"]`
        if isinstance(v, ExtRef) and (v.path in ("torch.Tensor", "torch.FloatTensor", "torch.LongTensor")
                                      or v.path in DYN_PATHS):
            return Shape.unknown(self.fresh_star()), None
        return None

    def _tensortype(self, node: ast.AST) -> Shape:
        if isinstance(node, (ast.List, ast.Tuple)):
            items = node.elts
        else:
            v = self.resolve(node)
            if isinstance(v, ExtRef) and v.path in DYN_PATHS:
                return Shape.unknown(self.fresh_star())
            items = [node]
        dims = []
        for it in items:
            if isinstance(it, ast.Constant) and isinstance(it.value, int) and not isinstance(it.value, bool):
                dims.append(Expr.const(it.value))
            elif isinstance(it, ast.Name) and it.id == "__":
                dims.append(self.hole(it))
            elif isinstance(it, ast.Constant) and isinstance(it.value, str) and it.value.isidentifier():
                dims.append(Expr.sym(it.value))
            else:
                dims.append(self.fresh_dyn())  # Dyn or anything we do not read
        return Shape(tuple(dims))

    def _jaxtyping(self, node: ast.AST) -> Optional[Shape]:
        if not isinstance(node, ast.Tuple) or len(node.elts) != 2:
            return None
        spec = node.elts[1]
        if not (isinstance(spec, ast.Constant) and isinstance(spec.value, str)):
            return None
        return parse_jaxtyping_dims(spec.value, self.fresh_dyn, self.fresh_star)


def parse_jaxtyping_dims(text: str, fresh_dyn: Callable[[], Expr], fresh_star: Callable[[], str]) -> Shape:
    pre: list[Expr] = []
    post: list[Expr] = []
    star: Optional[str] = None
    for tok in text.split():
        target = post if star is not None else pre
        if tok in ("...", "*...", "*_"):
            star = fresh_star()
            continue
        if tok.startswith("*"):
            star = tok[1:] if tok[1:].isidentifier() else fresh_star()
            continue
        tok = tok.lstrip("#")
        if "=" in tok:
            tok = tok.split("=", 1)[1] or "_"
        if tok == "_" or (tok.startswith("_") and tok.isidentifier()):
            target.append(fresh_dyn())
        elif tok.isdigit():
            target.append(Expr.const(int(tok)))
        elif tok.isidentifier():
            target.append(Expr.sym(tok))
        elif _EXPR_OK.match(tok):
            target.append(_expr_of(tok) or fresh_dyn())
        else:
            target.append(fresh_dyn())
    if star is None:
        return Shape(tuple(pre))
    return Shape(tuple(pre), star, tuple(post))


def _expr_of(text: str) -> Optional[Expr]:
    try:
        node = parse_ast(text, mode="eval").body
    except SyntaxError:
        return None

    def go(n: ast.AST) -> Expr:
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return Expr.const(n.value)
        if isinstance(n, ast.Name):
            return Expr.sym(n.id)
        if isinstance(n, ast.BinOp):
            a, b = go(n.left), go(n.right)
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            if isinstance(n.op, ast.Mult):
                return a * b
            if isinstance(n.op, (ast.FloorDiv, ast.Div)):
                return a // b
        raise ValueError
    try:
        return go(node)
    except ValueError:
        return None


UNION_PATHS = {"typing.Union", "typing.Optional", "typing_extensions.Optional", "typing_extensions.Union"}
# what a parameter annotated with only these is: a number, a string, a container — not a tensor
PLAIN_NAMES = {"int", "float", "bool", "str", "bytes", "complex", "tuple", "list", "dict", "set", "frozenset",
               "Tuple", "List", "Dict", "Set", "FrozenSet", "Sequence", "MutableSequence", "Iterable", "Mapping",
               "MutableMapping", "Callable", "Literal", "OrderedDict"}


def unstring(node: Optional[ast.AST]) -> Optional[ast.AST]:
    """A string annotation (`"int"`, `"Optional[Tensor]"`) as the expression it spells."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return parse_ast(node.value, mode="eval").body
        except SyntaxError:
            return None
    return node


def union_members(node: ast.AST, resolve: Callable[[ast.AST], Value]) -> Optional[list]:
    """The members of a union annotation (`X | None`, `Union[X, Y]`, `Optional[X]`, nested),
    `None` spelled as an `ast.Constant`; None when `node` is not a union."""
    node = unstring(node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _members(node.left, resolve) + _members(node.right, resolve)
    if isinstance(node, ast.Subscript):
        base = resolve(node.value)
        if isinstance(base, ExtRef) and base.path in UNION_PATHS:
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            out = [m for i in items for m in _members(i, resolve)]
            return out + [ast.Constant(None)] if base.path.endswith("Optional") else out
    return None


def alias_members(node: ast.Subscript, path: str) -> tuple:
    """The members `Union[...]` (`Optional[...]`: and `None`) lists, read without evaluating them:
    what an alias of it names (objects.UnionAliasV)."""
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return tuple(unstring(i) for i in items) + ((ast.Constant(None),) if path.endswith("Optional") else ())


def _members(node: ast.AST, resolve) -> list:
    got = union_members(node, resolve)
    return got if got is not None else [unstring(node)]


def is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def is_plain(node: ast.AST) -> bool:
    """A builtin or typing type that is never a tensor (`int`, `tuple[int, int]`, `List[str]`)."""
    base = node.value if isinstance(node, ast.Subscript) else node
    name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else None
    return name in PLAIN_NAMES
