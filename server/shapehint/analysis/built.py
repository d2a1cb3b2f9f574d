"""Construction contexts: a model is analysed with the values its construction actually used.

A function that returns a model it built (a factory: `def net18(**kw): return Net(Block, [2, 2],
**kw)`, or one that assembles the layers and passes them in) is a context in which the model's
`forward` runs: the instance it returns — its own constructor arguments, its Sequentials built
in loops, its block classes — is `self`, and the tensor inputs are those of `forward`'s own
analysis (unknown-rank tensors in its parameters' names, `x.shape[0]`), so what each factory's
model gives joins with the others and with the generic analysis line by line (sink.finish_values).
Without such a context a class whose constructor arguments have no default (`block`, `layers`)
leaves everything its assembled stages compute unknown: missing, never a guess.
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Callable

from .frames import BuiltContext, Frame, span_of
from .objects import FuncObj, InstanceObj

MAX_CONTEXTS = 8  # construction contexts run per class


def run_built_models(it, f: FuncObj, fr: Frame, param_value: Callable) -> None:
    """Run `forward` of each model instance `f` returns (f: a plain function's generic analysis,
    whose frame `fr` has run; `param_value`: the engine's parameter values of a generic analysis)."""
    seen = set()
    for v in list(fr.returns):
        if not isinstance(v, InstanceObj) or id(v) in seen or not v.cls.callable_like_a_module():
            continue
        seen.add(id(v))
        runs = it.built_runs.get(v.cls, 0)
        if runs >= MAX_CONTEXTS:  # (a file of a hundred factories of one class: enough to show)
            continue
        it.built_runs[v.cls] = runs + 1
        fwd = v.cls.lookup("forward")
        if not isinstance(fwd, FuncObj) or fwd.node is None:
            continue
        a = fwd.node.args
        params = (a.posonlyargs + a.args)[1:] + list(a.kwonlyargs)
        # the inputs as forward's own analysis has them (a frame of forward's, for annotations)
        own = Frame({}, fwd.qualname, fr.facts, fwd.globals, cls=fwd.cls, record=False)
        args = [param_value(it, fwd, p, own, False) for p in (a.posonlyargs + a.args)[1:]]
        kwargs = {p.arg: param_value(it, fwd, p, own, False) for p in a.kwonlyargs}
        if len(args) + len(kwargs) != len(params):
            continue
        span = _return_span(f.node)
        label = BuiltContext(f"{f.qualname}:{span.line}")
        host = dataclasses.replace(fr, built=(v, tuple(args) + tuple(kwargs.values()), label), returns=[])
        it.call_function(fwd, [v] + args, kwargs, host, span, created=v.span)


def _return_span(node: ast.FunctionDef):
    """The span of `node`'s last own `return` (the place its model leaves it), else of the def."""
    last = None
    todo = list(node.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, ast.Return) and (last is None or n.lineno > last.lineno):
            last = n
        todo.extend(ast.iter_child_nodes(n))
    return span_of(last if last is not None else node)
