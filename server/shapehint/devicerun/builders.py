"""Which of the file's factories built the run's model: the module-level functions its build
expression (`--build mobilenet_v3_small(num_classes=10)`, a `# entry:` comment's call) runs,
transitively. Their construction contexts (`FACTORY:LINE` in `infer` JSON) are the inference
for the model as built (compare.py), as they are for a user who reads hover after building it
that way (the referee's bench/realmodels/score.py judges the same contexts). A class the build
calls with every bool flag and string of its `__init__` at the default (none passed, or passed as
that constant; no `*args`/`**kwargs` that could pass one) built its model in the context of those
defaults (`CLASS.__init__:LINE`, analysis/flag_defaults.py)."""
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
    inits = {n.name: m for n in tree.body if isinstance(n, ast.ClassDef)
             for m in n.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"}
    for c in ast.walk(ast.Module(body=[ast.Expr(e.body) for e in calls] + [funcs[n] for n in found], type_ignores=[])):
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in inits \
                and _flags_at_defaults(c, inits[c.func.id]):
            found.add(f"{c.func.id}.__init__")
    return frozenset(found)


def _flags_at_defaults(call: ast.Call, init: ast.FunctionDef) -> bool:
    """Whether `call` leaves every parameter of `init` whose default is a bool or a string at its
    default (the construction context decides both, analysis/flag_defaults.py)."""
    a = init.args
    params = (a.posonlyargs + a.args)[1:]
    flags = {p.arg: d.value for p, d in zip(reversed(a.posonlyargs + a.args), reversed(a.defaults))
             if isinstance(d, ast.Constant) and isinstance(d.value, (bool, str))}
    flags.update({p.arg: d.value for p, d in zip(a.kwonlyargs, a.kw_defaults)
                  if isinstance(d, ast.Constant) and isinstance(d.value, (bool, str))})
    if any(isinstance(v, ast.Starred) for v in call.args) or any(k.arg is None for k in call.keywords):
        return False
    given = [(p.arg, v) for p, v in zip(params, call.args)] + [(k.arg, k.value) for k in call.keywords]
    return len(call.args) <= len(params) and all(
        isinstance(v, ast.Constant) and type(v.value) is type(flags[n]) and v.value == flags[n]
        for n, v in given if n in flags)
