"""`--assume` constraints: Python boolean expressions over `p.shape[i]`, `p.size(i)`, `p.dim()`,
`p.ndim` and symbol names, optionally scoped with a `QUALNAME:` prefix."""
from __future__ import annotations

import ast
import re
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import Pred

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
        node = ast.parse(body.strip(), mode="eval").body
    except SyntaxError as e:
        raise AssumeError(f"--assume {text!r}: not a Python expression ({e.msg})")
    for n in ast.walk(node):
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.Dict, ast.Await, ast.NamedExpr)):
            raise AssumeError(f"--assume {text!r}: only comparisons over shapes and symbols are allowed")
    return scope, node


def to_pred(it, fr, node: ast.expr, text: str) -> Pred:
    """Evaluate the assumption in the function's generic frame; names not bound there are symbols."""
    env_missing = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id not in fr.env
                   and n.id not in fr.globals}
    saved = dict(fr.env)
    for n in env_missing:
        from ..shapes.values import IntV
        fr.env[n] = IntV(Expr.sym(it.sink.reverse_name(fr.qualname, n)))
    rec, fr.record = fr.record, False
    try:
        v = it.eval(node, fr)
    finally:
        fr.record = rec
        fr.env.clear()
        fr.env.update(saved)
    p = it.implied(v)
    if p is None:
        raise AssumeError(f"--assume {text!r}: does not constrain shapes")
    return p
