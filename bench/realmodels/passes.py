"""The referee's judgement of a line by the passes of its loop.

A line in a loop may see another shape each pass of one call (a stage's downsampling `for layer
in self.downsampling_layer: features = layer(features)`: a norm keeps the shape, the strided conv
after it halves it), so no one shape fits every observation of a call. The analysis unrolls such
a loop and lists each pass's shape as a context `iteration k` in the function's own names. That
claim is judged pass by pass: the k-th shape the line took in a call (execute.py's `passes`) is
checked against `iteration k`, with that call's bindings. It counts only where the k-th run of
the line in a call is surely the loop's k-th pass:
- the line is a simple statement directly in the body of a `for` loop, the only loop around it
  in its function (a nested loop's passes interleave, and an outer unrolled loop labels the
  records of an inner one's later passes);
- the body has no `continue` (a pass that skips the line would shift the later ones; a `break`
  only ends them);
- every own record of the line is an iteration's (no `generic` context: a path where the loop
  ran to a fixpoint claims no pass), every call's order was kept, and every pass has its
  context; else the claim is left partial, never right.
Each pass's context is judged as a shape is (`score.judge`): a pass whose evaluable dims differ
is wrong.
"""
from __future__ import annotations

import ast
import re

_ITERATION = re.compile(r"^iteration (\d+)$")
_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def pass_lines(source: str) -> frozenset:
    """The lines of the statements whose k-th run in a call is their loop's k-th pass."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    out = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for loop in _loops(fn.body):
                if not _continues(loop.body):
                    for st in loop.body:
                        if isinstance(st, _SIMPLE):
                            out.update(range(st.lineno, (st.end_lineno or st.lineno) + 1))
    return frozenset(out)


def _loops(body: list) -> list:
    """The `for` loops of `body` that no other loop of the same function encloses; a function
    with a `while` loop or a loop inside another gives none there (its passes interleave)."""
    out = []
    for st in body:
        if isinstance(st, _SCOPES):
            continue
        if isinstance(st, (ast.For, ast.AsyncFor)):
            if not _has_loop(st.body) and not _has_loop(st.orelse):
                out.append(st)
            continue
        if isinstance(st, ast.While):
            continue
        for field in ("body", "orelse", "finalbody"):
            out.extend(_loops(getattr(st, field, None) or []))
        for h in getattr(st, "handlers", None) or []:
            out.extend(_loops(h.body))
        for case in getattr(st, "cases", None) or []:
            out.extend(_loops(case.body))
    return out


def _has_loop(body: list) -> bool:
    return any(isinstance(n, (ast.For, ast.AsyncFor, ast.While)) for st in body for n in _walk(st))


def _continues(body: list) -> bool:
    return any(isinstance(n, ast.Continue) for st in body for n in _walk(st))


def _walk(node):
    """`ast.walk` that does not enter nested functions, classes or lambdas."""
    if isinstance(node, _SCOPES):
        return
    yield node
    for child in ast.iter_child_nodes(node):
        yield from _walk(child)


def iteration_shapes(val: dict) -> dict | None:
    """{k: [shape, ...]} of the own `iteration k` contexts of an answer's value; None where it
    lists none, or lists an own record that is no iteration's (`generic`)."""
    out = {}
    for ctx in (val or {}).get("contexts") or []:
        if ctx.get("via") or ctx.get("detail"):
            continue
        label = ctx.get("context", "")
        if label == "generic":
            return None
        m = _ITERATION.match(label)
        if m:
            out.setdefault(int(m.group(1)), []).append(ctx.get("shape"))
    return out or None


def judge_passes(val: dict, sequences, look, judge, join_dims, combine) -> str | None:
    """The verdict of `val`'s iteration contexts against one invocation's recorded passes of the
    line (`sequences`: the shapes of each call, in order); None where the claim does not apply."""
    shapes = iteration_shapes(val)
    if shapes is None or not sequences:
        return None
    verdicts = []
    for seq in sequences:
        for k, obs in enumerate(seq):
            claimed = shapes.get(k)
            if not claimed:
                verdicts.append("partial")
                continue
            shape = claimed[0] if all(s == claimed[0] for s in claimed) else join_dims(claimed)
            verdicts.append(judge(shape, obs, look))
    return combine(verdicts)
