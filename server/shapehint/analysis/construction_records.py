"""What a factory's construction computes, recorded in its sized construction context (issue 27).

A factory's construction context (built.py, sized_kwargs.py) reruns its body with `**kwargs`
holding sizes only and every flag at its default; only the forward of the models it returns was
recorded there. The tensors its construction computes on the way (a RegNet's per-stage widths,
`torch.unique(widths, return_counts=True)` over widths the rerun knows) were not: the generic
analyses of those helpers hold the factory's configuration open, so their lengths are unknown.

The rerun now records them under the factory's label, each call adding its site (`F:N via Q:M via
...`, outermost first, as frames.deep_context names a path): a claim about the runs reached
through that path in a model built by the factory as devicerun/builders.py matches it, never
about a helper's other calls (the same helper called by `forward` is another path). Only shapes
the rerun knows whole (every dim a constant) are kept: a symbol there is in the factory's names,
which are not the helper's own, so a line that is anything else on some run of the path (a
symbolic shape, not a tensor) keeps no shape of that label at all (sink.lost_built), as a
construction context's group would read as every run's. Kept out of the function's own shape:
a construction context is never its join (sink.finish_values)."""
from __future__ import annotations

import ast

from ..shapes.values import TensorV
from .frames import BuiltContext, deep_context, span_of


def label(f) -> BuiltContext:
    """The label of the records of the factory `f`'s sized rerun: its models' (built.py)."""
    out = BuiltContext(f"{f.qualname}:{return_span(f.node).line}")
    out.construction = True
    return out


def deeper(context: BuiltContext, site: str) -> BuiltContext:
    """The label of a call made at `site` (`QUALNAME:LINE`) under `context`."""
    out = deep_context(context, site)
    out.construction = True
    return out


def is_construction(context) -> bool:
    return getattr(context, "construction", False)


def kept(value) -> bool:
    """Whether a value recorded under a construction label is kept: a tensor whose every dim is
    a constant."""
    if not isinstance(value, TensorV):
        return False
    s = value.shape
    return s.star is None and all(d.is_const for d in s.dims)


def return_span(node: ast.FunctionDef):
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
