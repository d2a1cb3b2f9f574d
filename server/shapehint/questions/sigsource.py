"""What the signatures read of an analysis, in one place: the only module of the signature
feature that asks the `AnalysisSession` (analysis/session.py).

Everything returned is plain: names, `TensorV`s, `Pred`s, spans as (line, col)."""
from __future__ import annotations

import ast
from typing import Optional

from ..frontend.pyast import parse as parse_ast
from .common import display, tensor_params


def functions(session) -> list:
    """Qualnames of the functions that take tensors (not `__init__`), in definition order; none
    when the analysis did not run (an internal error costs the file its answers, not the command)."""
    from .migrate import migratable_functions
    if not session.live():
        return []
    session.ensure_generic()
    return migratable_functions(session)


def takes_tensors(session, qualname: str) -> bool:
    """Does the function (analysed now if it was not) take tensors?"""
    if qualname.endswith(".__init__"):
        return False
    session.ensure_generic({qualname})
    return bool(tensor_params(session, qualname))


def params(session, qualname: str) -> dict:
    return tensor_params(session, qualname)


def store(session, qualname: str):
    return session.interp.generic_stores.get(qualname)


def failures(session, qualname: str) -> list:
    """[(line, message)] of the provable errors of the function's own analysis."""
    return [(f.span.line, f.message) for f in session.interp.reporter.failures
            if f.function == qualname and f.context == ""]


def gave_up(session, qualname: str) -> bool:
    """True when some operation on tensors was not followed (it lets any shape through)."""
    return bool(session.interp.gave_up_in.get(qualname))


def shown(session, qualname: str, e):
    """`e` with the analysis's symbols in the names the user sees (annotations, unpacking)."""
    return display(session, qualname, e)


def with_ranks(session, qualname: str, budget: Optional[list]) -> Optional[tuple]:
    """(analysis, {param: reason}) with ranks given to the parameters whose rank the body leaves
    open (the migration's rank search), or None when no ranks tried pass."""
    from .migrate import search_ranks
    found = search_ranks(session, qualname, (), params(session, qualname), budget)
    if found is None:
        return None
    got, tried = found
    return tried, {p["name"]: p["reason"] for p in got["params"] if p.get("reason")}


def def_line(session, qualname: str) -> Optional[int]:
    span = session.result.functions.get(qualname)
    return span.line if span is not None else None


def function_node(session, qualname: str):
    """(the function's `ast` node, its class's node or None)."""
    fn = session.function(qualname)
    if fn is None:
        return None, None
    cls = fn.cls.node if getattr(fn, "cls", None) is not None else None
    if cls is None and "." in qualname:
        head = qualname.split(".")[0]
        cls = next((n for n in ast.walk(parse_ast(session.result.text)) if isinstance(n, ast.ClassDef) and n.name == head), None)
    return fn.node, cls


def base_classes(session, qualname: str) -> dict:
    """{name: ClassDef} of the classes the method's class inherits from other modules the
    analysis followed (`class BertModelFx(bert.BertModel)`), and of the classes those modules
    define (their `__init__` builds the layers an inherited attribute holds)."""
    from ..analysis.objects import ClassObj, FuncObj
    fn = session.function(qualname)
    out: dict = {}
    todo, seen = [fn.cls] if fn is not None and getattr(fn, "cls", None) is not None else [], set()
    while todo:
        c = todo.pop(0)
        if id(c) in seen:
            continue
        seen.add(id(c))
        todo += [b for b in c.bases if isinstance(b, ClassObj) and b.node is not None]
        if c is fn.cls:
            continue
        out.setdefault(c.name, c.node)
        for m in c.attrs.values():
            for g in (m.globals.values() if isinstance(m, FuncObj) else ()):
                if isinstance(g, ClassObj) and g.node is not None:
                    out.setdefault(g.name, g.node)
    return out


def callers(session, qualname: str) -> list:
    """The functions whose analyses call this one (they give it its inputs)."""
    return sorted(set(session.interp.called_from.get(qualname, ())) - {qualname})
