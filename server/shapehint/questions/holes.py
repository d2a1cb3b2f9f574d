"""Shape holes: `__` where an int belongs (Tensors Fitting Perfectly §3.8).

Every analysis that constrained a hole (the function's own analysis, and each calling
context) must admit its value, so the answer is the intersection of the ranges each one
allows. A hole inside a provably failing precondition has no value (SH404). Lines that fail
for another reason are not facts, so they do not hide a hole's value elsewhere.
"""
from __future__ import annotations

from ..shapes.expr import Expr
from ..shapes.shape import conj
from ..solver.facts import Unknown
from .common import consistent, default_assumptions


def answer_holes(session) -> list:
    session.ensure_generic()
    it = session.interp
    out = []
    roots = {id(st): q for q, st in it.generic_stores.items()}  # a store -> whose analysis it is
    for name, span in sorted(it.env.holes.items(), key=lambda kv: (kv[1].line, kv[1].col)):
        item = {"line": span.line, "col": span.col, "status": "unknown", "value": None, "lo": None, "hi": None,
                "examples": [], "note": None}
        fails = [f for f in it.reporter.failures if name in f.pred.symbols()]
        if fails:
            item.update(status="none", note=f"line {fails[0].span.line}: {fails[0].message}")
            out.append(item)
            continue
        lo, hi, stores = 1, None, []
        # Concrete calls from module-level code (the first store) are the program as it runs;
        # when they constrain the hole they decide it, as in Tensors Fitting Perfectly.
        mentioning = [st for st in it.env.stores if any(name in f.pred.symbols() for f in st.facts)]
        if it.env.stores and it.env.stores[0] in mentioning:
            mentioning = [it.env.stores[0]]
        try:
            for st in mentioning:
                if True:
                    # the value for the model as `Cls()` builds it (common.default_assumptions)
                    assumed = consistent(st, default_assumptions(session, roots.get(id(st))))
                    stores.append((st, assumed))
                    a, b = st.value_range(Expr.sym(name), assumed)
                    lo = max(lo, a if a is not None else lo)
                    hi = b if hi is None else (min(hi, b) if b is not None else hi)
        except Unknown:
            out.append(item)
            continue
        if not stores:
            item.update(lo=1, note="nothing constrains this hole")
            item["status"] = "range"
            item["examples"] = [1, 2, 3]
        elif hi is not None and lo > hi:
            item.update(status="none", note="the uses of this hole need incompatible values")
        elif hi is not None and lo == hi:
            item.update(status="unique", value=lo, lo=lo, hi=hi, examples=[lo])
        else:
            item.update(status="range", lo=lo, hi=hi, examples=_examples(stores, name, lo, hi))
        out.append(item)
    return out


def _examples(stores, name: str, lo: int, hi) -> list:
    vals = []
    for v in range(lo, lo + 64):
        if hi is not None and v > hi:
            break
        if all(st.possible(conj(_eq(name, v), *assumed))[0] is not False for st, assumed in stores):
            vals.append(v)
        if len(vals) == 3:
            break
    return vals


def _eq(name: str, v: int):
    from ..shapes.shape import eq
    return eq(Expr.sym(name), v)
