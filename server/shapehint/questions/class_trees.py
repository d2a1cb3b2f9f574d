"""Syntax facts the signature questions read again and again, computed once (issue 28).

`signatures._id_params` runs once per function of a file and used to parse the whole file and
walk every class of the hierarchy (an imported base class can be thousands of lines) each time:
on a transformers modeling file that was a third of `infer`'s CPU. Both answers depend only on
their input — the file's text, one class's unchanging syntax tree — so they are kept and reused;
what callers see is the same as recomputing them.
"""
from __future__ import annotations

import ast

from ..frontend.pyast import parse as parse_ast
from ..frontend.walk import walk
from ..frontend.names import dotted

_CLASSES: dict = {}   # text -> {name: ClassDef}, last file only (a server sees one file at a time)


def classes_of(text: str) -> dict:
    """{name: ClassDef} of every class in the module `text` (a later one of the same name wins,
    as `ast.walk` order makes it). A fresh dict: callers may add to it."""
    got = _CLASSES.get(text)
    if got is None:
        _CLASSES.clear()
        got = _CLASSES[text] = {n.name: n for n in walk(parse_ast(text)) if isinstance(n, ast.ClassDef)}
    return dict(got)


def attribute_calls(cls: ast.ClassDef) -> tuple:
    """(attribute, dotted callee) of each `X.attr = callee(...)` anywhere in the class, in
    `ast.walk` order, one item per attribute target; kept on the node, as usage.py keeps its
    walks (parsed trees are never changed)."""
    got = getattr(cls, "_shapehint_attribute_calls", None)
    if got is not None:
        return got
    out = []
    for node in walk(cls):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            callee = dotted(node.value.func)
            out.extend((t.attr, callee) for t in node.targets if isinstance(t, ast.Attribute))
    cls._shapehint_attribute_calls = tuple(out)
    return cls._shapehint_attribute_calls
