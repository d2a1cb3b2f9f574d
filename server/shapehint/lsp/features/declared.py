"""What the code declares about a hovered value (analysis/contracts.py checks it): the
annotation of an annotated variable, or the enclosing function's return annotation for the value
of a `return`. Hover shows it next to the inferred shape. Only shape annotations count: a dims
string (`Float[Tensor, "B 64"]`), `TensorType`, or a name this module binds at top level (an
alias); `torch.Tensor` and other typing hints are not contracts.
"""
from __future__ import annotations

import ast
from functools import lru_cache
from typing import Optional

from ...frontend.pyast import parse as parse_ast


def declared_at(text: str, span) -> Optional[str]:
    """The declared annotation of the value at exactly `span`, as written, or None."""
    return _declarations(text).get((span.line, span.col, span.end_line, span.end_col))


@lru_cache(maxsize=4)  # (hovers come in bursts over one version of one document)
def _declarations(text: str) -> dict:
    try:
        tree = parse_ast(text)
    except (SyntaxError, ValueError):
        return {}
    aliases = {t.id for st in tree.body for t in _bound(st)}
    out: dict = {}

    def note(node, ann) -> None:
        if node is not None and ann is not None and _is_shape(ann, aliases):
            out[(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)] = ast.get_source_segment(text, ann) or ast.unparse(ann)

    def walk(node, returns) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                walk(child, child.returns)
                continue
            if isinstance(child, ast.Lambda):
                continue
            if isinstance(child, ast.AnnAssign):
                note(child.target, child.annotation)
            elif isinstance(child, ast.Return) and returns is not None:
                note(child.value, returns)
            walk(child, returns)

    walk(tree, None)
    return out


def _bound(st) -> list:
    if isinstance(st, ast.Assign):
        return [t for t in st.targets if isinstance(t, ast.Name)]
    if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
        return [st.target]
    return []


def _is_shape(ann, aliases: set) -> bool:
    if isinstance(ann, ast.Name):
        return ann.id in aliases
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) or
               isinstance(n, ast.Name) and (n.id == "TensorType" or n.id in aliases) for n in ast.walk(ann))
