"""Which of the file's factories built the run's model: the module-level functions its build
expression (`--build mobilenet_v3_small(num_classes=10)`, a `# entry:` comment's call) runs,
transitively. Their construction contexts (`FACTORY:LINE` in `infer` JSON) are the inference
for the model as built (compare.py), as they are for a user who reads hover after building it
that way (the referee's bench/realmodels/score.py judges the same contexts)."""
from __future__ import annotations

import ast


def built_by(exprs: list, text: str) -> frozenset:
    try:
        tree = ast.parse(text)
        calls = [ast.parse(e, mode="eval") for e in exprs]
    except (SyntaxError, ValueError):
        return frozenset()
    funcs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def called(node) -> set:
        return {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                and c.func.id in funcs}
    found, todo = set(), set().union(*[called(c) for c in calls]) if calls else set()
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo |= called(funcs[name])
    return frozenset(found)
