"""The dotted name an expression spells (`torch.nn.functional.pad`, `self.fc`), for code that
matches calls and annotations by name without analysing them."""
from __future__ import annotations

import ast


def dotted(node) -> str:
    """`a.b.c` for a chain of names and attributes; "" for anything else (a call, a subscript)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return head + "." + node.attr if head else ""
    return ""
