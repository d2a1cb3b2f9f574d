"""`--assume` constraints: Python boolean expressions over `p.shape[i]`, `p.size(i)`, `p.dim()`,
`p.ndim` and symbol names, optionally scoped with a `QUALNAME:` prefix."""
from __future__ import annotations

import ast
import dataclasses
import re
from typing import Optional

from ..frontend.pyast import parse as parse_ast
from ..shapes.expr import Expr
from ..shapes.shape import Pred
from ..shapes.values import IntV

_SCOPE = re.compile(r"^\s*([A-Za-z_][\w.<>]*)\s*:\s*(.+)$")


class AssumeError(ValueError):
    pass


def split_scope(text: str) -> tuple[Optional[str], str]:
    m = _SCOPE.match(text)
    if m and not m.group(2).startswith("="):
        return m.group(1), m.group(2)
    return None, text


def parse_assumption(text: str) -> tuple[Optional[str], ast.expr]:
    scope, body = split_scope(text)
    try:
        node = parse_ast(body.strip(), mode="eval").body
    except SyntaxError as e:
        raise AssumeError(f"--assume {text!r}: not a Python expression ({e.msg})")
    for n in _nodes(node):
        if isinstance(n, _FORBIDDEN):
            raise AssumeError(f"--assume {text!r}: only comparisons over shapes and symbols are allowed")
    return scope, node


_FORBIDDEN = (ast.Lambda, ast.ListComp, ast.Dict, ast.Await, ast.NamedExpr)


def _nodes(node: ast.AST):
    """The nodes of a small tree (ast.walk's generators cost more than the tree here)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for f in n._fields:
            v = getattr(n, f, None)
            if isinstance(v, ast.AST):
                stack.append(v)
            elif isinstance(v, list):
                stack.extend(x for x in v if isinstance(x, ast.AST))


def to_pred(it, fr, node: ast.expr, text: str) -> Pred:
    """Evaluate the assumption in the function's generic frame; names not bound there are symbols."""
    names = [n.id for n in _nodes(node) if isinstance(n, ast.Name)]
    env = dict(fr.env)
    for n in names:
        if n not in fr.env and n not in fr.globals:
            env[n] = IntV(Expr.sym(it.sink.reverse_name(fr.qualname, n)))
    # in a copy of the frame: the generic frame is the session's, and an assumption records nothing
    v = it.eval(node, dataclasses.replace(fr, env=env, record=False))
    p = it.implied(v)
    if p is None:
        raise AssumeError(f"--assume {text!r}: does not constrain shapes")
    return p
