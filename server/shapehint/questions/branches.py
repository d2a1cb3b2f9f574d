"""Q3: shape-dependent branches, decided for every admissible input or not.

For each `if` whose condition depends on shapes, the facts at that point (annotations,
assertions, earlier preconditions, `--assume`) either force the condition (always-true /
always-false) or admit both outcomes (depends), with a witness input for each outcome.
Only the function's own (generic) analysis is used: a decision holds for every admissible
input of the function, not only for one caller's.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.shape import conj, neg
from .common import generic_frame, witness
from .assume import parse_assumption, to_pred

SHAPE_WORDS = {"shape", "size", "dim", "ndim", "numel", "ndimension"}


def shape_dependent(test: ast.expr, pred) -> bool:
    if pred is not None and pred.symbols():
        return True
    for n in ast.walk(test):
        if isinstance(n, ast.Attribute) and n.attr in SHAPE_WORDS:
            return True
    return False


def answer_branches(result, assume: list = ()) -> list:
    from .common import ensure_generic
    ensure_generic(result)
    it = result.interp
    extra_by_fn: dict = {}
    out, seen = [], set()
    for node, fn, pred, decided, context, facts in it.branches:
        if context != "" or (node.lineno, node.col_offset) in seen:
            continue
        if isinstance(node.test, ast.Call) and isinstance(node.test.func, ast.Name) and node.test.func.id == "isinstance":
            continue
        if not shape_dependent(node.test, pred):
            continue
        seen.add((node.lineno, node.col_offset))
        extra = extra_by_fn.get(fn)
        if extra is None:
            extra = extra_by_fn[fn] = _assumptions(result, fn, assume)
        item = {"line": node.lineno, "col": node.col_offset, "function": fn, "status": "unknown",
                "witnesses": {"true": None, "false": None}, "condition": ast.unparse(node.test)}
        if pred is None:
            out.append(item)
            continue
        store = it.generic_stores.get(fn)
        if store is None:
            out.append(item)
            continue
        t = witness(result, fn, store, facts, [pred] + extra)
        f = witness(result, fn, store, facts, [neg(pred)] + extra)
        if t is not None and f is None:
            item["status"] = "always-true"
        elif f is not None and t is None:
            item["status"] = "always-false"
        elif t is not None and f is not None:
            item["status"] = "depends"
        item["witnesses"] = {"true": t, "false": f}
        out.append(item)
    out.sort(key=lambda b: (b["line"], b["col"]))
    return out


def _assumptions(result, fn: str, assume) -> list:
    preds = []
    fr = generic_frame(result, fn)
    if fr is None:
        return preds
    for text in assume:
        scope, node = parse_assumption(text)
        if scope is not None and scope != fn:
            continue
        try:
            preds.append(to_pred(result.interp, fr, node, text))
        except ValueError:
            continue
    return preds
