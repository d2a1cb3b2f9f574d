"""A constructor's string parameter assumed equal to a literal its `__init__` compares it with
(docs/analysis.md, "A flag's default").

The construction context of a class at its defaults (flag_defaults.py) decides each string
parameter at its default; a build that passes another value (`ResNet(..., stem_type='deep')`)
matches no context, and the class on its own holds the string undecided, so every line after
`deep_stem = 'deep' in stem_type` joins both stems, and each `if` on an int the constructor
compares (`output_stride`) stays open too. For each literal the `__init__` compares one of its
string parameters with (`p == 'L'`, `p != 'L'`, `'L' in p`), that construction is run once more
with that parameter given the literal (everything else as there), labelled
`CLASS.__init__:LINE assuming p == 'L'`; it claims shapes only for builds passing exactly that
literal for `p` and leaving every other flag at its default (devicerun/builders.py).

Pure `ast`: the analysis (flag_defaults.py) and devicerun/builders.py read the same comparisons.
"""
from __future__ import annotations

import ast
from typing import Optional
from ..frontend.params import defaulted

MAX_PARAM_LITERALS = 2  # assumptions per class (each runs the whole model again)
PREFIX = " assuming "  # (literal_contexts.PREFIX: the referee reads both labels alike)


def _string_params(init: ast.FunctionDef) -> dict:
    """`init`'s parameters whose default is a string: name -> the default."""
    pairs = defaulted(init)
    return {p.arg: d.value for p, d in pairs if isinstance(d, ast.Constant) and isinstance(d.value, str)}


def _compared(test, params: dict) -> Optional[tuple]:
    """(param, literal) of `p == 'L'`, `p != 'L'` (either side) or `'L' in p` / `'L' not in p`."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, (ast.In, ast.NotIn)):
        pair = (right, left)
    elif isinstance(op, (ast.Eq, ast.NotEq)):
        pair = (right, left) if isinstance(left, ast.Constant) else (left, right)
    else:
        return None
    name, lit = pair
    if isinstance(name, ast.Name) and name.id in params and isinstance(lit, ast.Constant) \
            and isinstance(lit.value, str) and _plain(lit.value) and lit.value != params[name.id]:
        return name.id, lit.value
    return None


def _plain(text: str) -> bool:
    """A literal a label can quote as `'L'` and the referee read back (no quote, no space)."""
    return bool(text) and not any(c in text for c in "'\" \t\n\\")


def param_literals(init: ast.FunctionDef) -> list:
    """[(param, literal)] that `init`'s own body compares its string parameters with, in source
    order, each once, at most MAX_PARAM_LITERALS (a nested function's comparisons are its own)."""
    params = _string_params(init)
    out: list = []
    if not params:
        return out
    todo = list(init.body)
    while todo:
        n = todo.pop(0)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        found = _compared(n, params)
        if found is not None and found not in out:
            out.append(found)
        todo[:0] = list(ast.iter_child_nodes(n))
    return out[:MAX_PARAM_LITERALS]


def label(base: str, param: str, lit: str) -> str:
    return f"{base}{PREFIX}{param} == {lit!r}"
