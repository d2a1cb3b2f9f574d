"""Ordinary typing annotations are hints (issue 28, cause 3): only shape annotations (jaxtyping,
TensorType, asserts) are facts. A hint that says "a tuple of one tensor"
(`hidden_states: Optional[tuple[torch.FloatTensor]]`, as GPT-2's blocks write) on a parameter
the body never reads as a sequence is taken for what the body does with it: the tensor its
callers pass, so the function's own analysis is the one its calls make, not a tuple no caller
gives. A hint the body does read as a sequence (`h[0]`, `for t in h`, `a, b = h`, `len(h)`)
keeps its meaning.

A hint of an int or a tuple of ints (`input_resolution: Union[int, Tuple[int, int]]`) on a
constructor parameter that the module reads only as a sequence — itself and the attributes it is
stored in unpacked, zipped, indexed, iterated — is that tuple (`int_or_tuple`, `sequence_only`):
an int would raise at the first read, so every line that runs holds the tuple, and nothing
before those reads depends on it."""
from __future__ import annotations

import ast
from typing import Callable, Optional

from ..frontend.walk import walk
from ..shapes.values import ExtRef, Value
from .objects import UnionAliasV
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
                               and n.attr in TUPLES for n in walk(node)):
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
    for node in walk(fn):
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


def int_or_tuple(annotation: Optional[ast.AST], resolve: Callable[[ast.AST], Value],
                 named: Callable[[str], Optional[Value]]) -> Optional[ast.AST]:
    """Of `Union[int, Tuple[int, int]]` (spelled, or an alias of it: `named` looks a name up in
    the module's names, unevaluated), the tuple member; else None. Only a spelled one that names
    `int` and a tuple is evaluated (`resolve`), so other annotations cost no step."""
    node = unstring(annotation)
    if isinstance(node, ast.Name):
        alias = named(node.id)
        members = list(alias.members) if isinstance(alias, UnionAliasV) else None
    elif node is not None and _names_int_and_tuple(node):
        members = union_members(node, resolve)
    else:
        return None
    if members is None or len(members) != 2:
        return None
    ints = [m for m in members if isinstance(m, ast.Name) and m.id == "int"]
    tuples = [m for m in members if _tuple_of_ints(m)]
    return tuples[0] if len(ints) == 1 and len(tuples) == 1 else None


def _names_int_and_tuple(node: ast.AST) -> bool:
    names = {n.id if isinstance(n, ast.Name) else n.attr for n in walk(node) if isinstance(n, (ast.Name, ast.Attribute))}
    return "int" in names and bool(names & TUPLES)


def _tuple_of_ints(node: ast.AST) -> bool:
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple):
        return False
    base = node.value
    name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else None
    return name in TUPLES and all(isinstance(e, ast.Name) and e.id == "int" for e in node.slice.elts)


def sequence_only(classes: list, init: ast.FunctionDef, name: str) -> bool:
    """Whether `init` reads its parameter `name` only as a sequence or to store it in attributes
    of `self` (`self.res = name`), and every method of `classes` (the instance's class and its
    bases, `ast.ClassDef`s) reads those attributes only as a sequence."""
    attrs: set = set()
    parents = _parents(init)
    for node in walk(init):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            up = parents.get(id(node))
            if isinstance(up, ast.Assign) and up.value is node and len(up.targets) == 1 and \
                    _self_attr(up.targets[0]) is not None:
                attrs.add(_self_attr(up.targets[0]))
            elif not _sequence_read(node, up):
                return False
    return all(_sequence_read(node, _parents(c).get(id(node))) for c in classes for node in walk(c)
               if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and _self_attr(node) in attrs)


def _self_attr(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _parents(tree: ast.AST) -> dict:
    """Each node's parent in `tree` (kept on the node: parsed trees are never changed)."""
    cache = getattr(tree, "_shapehint_parents", None)
    if cache is None:
        cache = tree._shapehint_parents = {id(c): n for n in walk(tree) for c in ast.iter_child_nodes(n)}
    return cache


def _sequence_read(node: ast.AST, up: Optional[ast.AST]) -> bool:
    """`node`, read in `up`, is used as a sequence (an int there raises)."""
    if isinstance(up, ast.Subscript):
        return up.value is node
    if isinstance(up, (ast.For, ast.comprehension)):
        return up.iter is node
    if isinstance(up, ast.Starred):
        return True
    if isinstance(up, ast.Assign):
        return up.value is node and all(isinstance(t, (ast.Tuple, ast.List)) for t in up.targets)
    return isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in SEQUENCE_READS \
        and any(a is node for a in up.args)


SEQUENCE_READS = {"len", "list", "tuple", "zip", "enumerate", "iter", "reversed", "sorted"}  # (each raises on an int)
