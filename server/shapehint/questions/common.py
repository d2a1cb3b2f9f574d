"""Shared by the questions: the generic frame of a function, witnesses, display names."""
from __future__ import annotations

from typing import Optional

from ..analysis.interp import Frame
from ..shapes.expr import Expr
from ..shapes.shape import Pred
from ..shapes.values import TensorV
from ..solver.facts import FactStore


def ensure_generic(result) -> None:
    """Functions whose summaries were restored from the warm cache have no solver state in this
    run: analyse those now (the questions need their facts, branches and failures)."""
    from ..analysis.engine import analyze_function
    it = getattr(result, "interp", None)
    if it is None:
        return
    for f in list(it.functions):
        if f.qualname not in it.generic_stores:
            f._generic_done = False
            it.sink.owner = f.qualname
            try:
                analyze_function(it, f)
            except Exception:  # the answer for this function is then "unknown"
                continue


def generic_frame(result, qualname: str) -> Optional[Frame]:
    it = result.interp
    params = it.param_values.get(qualname)
    store = it.generic_stores.get(qualname)
    if params is None or store is None:
        return None
    fn = next((f for f in it.functions if f.qualname == qualname), None)
    return Frame(dict(params), qualname, store, fn.globals if fn else {}, record=False)


def tensor_params(result, qualname: str) -> dict:
    it = result.interp
    out = {}
    for name, v in (it.param_values.get(qualname) or {}).items():
        if isinstance(v, TensorV):
            it.resolve(v)
            out[name] = v
    return out


def display(result, qualname: str, e: Expr) -> Expr:
    ren = result.interp.sink.renames.get(qualname, {})
    return e.subs({k: Expr.sym(v) for k, v in ren.items()})


def witness(result, qualname: str, store: FactStore, facts: list, extra: list) -> Optional[dict]:
    """Concrete parameter shapes satisfying `facts ∧ extra`, preferring small values."""
    params = tensor_params(result, qualname)
    syms = sorted({s for t in params.values() for d in t.shape.dims for s in d.symbols()})
    probe = FactStore(store.limits)
    probe.lower.update(store.lower)
    for f in facts:
        probe.add(f.pred, f.origin)
    m = probe.model(extra, names=syms, minimize=syms)
    if m is None:
        return None
    out = {}
    for name, t in params.items():
        if t.shape.rank is None:
            continue
        out[name] = [d.subs(m).value if d.subs(m).value is not None else 1 for d in t.shape.dims]
    return out
