"""Z3's definite answers within one analysis job, recalled for a formula that is the same up to
the names of its symbols.

A model's repeated blocks ask the same question of each block's own symbols: every window of
vitdet's 12 attention layers asks whether its padded size divides back (`(2*W7 - 1)//... != H7`,
then the same of W8 and H8 ...), each a second of Z3 at the full resource limit; 78 of its 134
queries were such repeats (27 of 37 CPU s), 221 of sam's 304. `answers.py` recalls only the very
same formula. Here the key is the formula with its symbols renamed in a canonical order, with
each renamed symbol's declared bounds, so equal keys mean one formula is the other renamed:
satisfiability is the same, and a model maps back through the renaming. The order is chosen by
what does not depend on a name (a symbol's bounds and the shapes of the predicates it occurs in),
ties by name: two renamings that tie differently only miss each other, never meet wrongly.

Per job (`contexts.Session.alike`), as the job's other memos, so that a job's answers do not
depend on the jobs before it; an undecided answer (a limit reached) is never kept; a query asked
for its unsat core is answered here only when satisfiable (the core names this store's facts).
"""
from __future__ import annotations

from typing import Optional

from ..shapes.expr import Expr

MAX_KEPT = 20000
_ANON = -1  # every symbol, in the representation that orders them


def _expr(e: Expr, ren) -> frozenset:
    return frozenset((_monomial(m, ren), c) for m, c in e.terms.items())


def _monomial(m: tuple, ren) -> frozenset:
    """The monomial's renamed atoms with their powers (a multiset: renaming changes their order)."""
    if len(m) == 1:  # (most are: a Counter for one atom was a twentieth of `check`'s CPU)
        return frozenset(((_atom(m[0], ren), 1),))
    powers: dict = {}
    for a in m:
        x = _atom(a, ren)
        powers[x] = powers.get(x, 0) + 1
    return frozenset(powers.items())


def _atom(a, ren):
    if a.kind == "sym":
        return ren(a.name)
    return a.kind, tuple(_expr(x, ren) if isinstance(x, Expr) else x for x in a.args)


def _pred(p, ren) -> tuple:
    return p.op, tuple(_expr(x, ren) if isinstance(x, Expr) else _pred(x, ren) for x in p.args)


def _anonymous(p) -> tuple:
    """`p` with every symbol the same (`_ANON`): what orders its symbols, kept on the predicate,
    which is immutable and asked about on every query of every path that holds it."""
    got = p.__dict__.get("_alike_shape")
    if got is None:
        got = _pred(p, _anon)
        object.__setattr__(p, "_alike_shape", got)
    return got


def _anon(_name: str) -> int:
    return _ANON


def key(preds: frozenset, query: tuple, lower: dict, upper: dict, limits: tuple) -> tuple:
    """(key, the symbols' names in the key's order)."""
    occurs: dict = {}  # symbol -> the shapes (name-free) of the predicates it occurs in
    for tag, group in (("f", preds), ("q", query)):
        for p in group:
            shape = hash((tag, _anonymous(p)))
            for n in p.symbols():
                occurs.setdefault(n, []).append(shape)
    names = sorted(occurs, key=lambda n: (lower.get(n, 1), upper.get(n) is None, upper.get(n) or 0,
                                          sorted(occurs[n]), n))
    index = {n: i for i, n in enumerate(names)}
    ren = index.__getitem__
    k = (frozenset(_pred(p, ren) for p in preds), tuple(_pred(p, ren) for p in query),
         tuple((lower.get(n, 1), upper.get(n)) for n in names), limits)
    return k, names


def recall(kept: Optional[dict], preds: frozenset, query: tuple, lower: dict, upper: dict, limits: tuple,
           want_core: bool) -> tuple:
    """((satisfiable, the model's values by this query's names or None) or None, the key to keep
    Z3's answer under or None). `kept`: the job's answers (None: a store outside any job)."""
    if kept is None:
        return None, None
    k, names = key(preds, query, lower, upper, limits)
    got = kept.get(k)
    if got is None or want_core and not got[0]:
        return None, (kept, k, names)
    sat, point = got
    return (sat, None if point is None else {names[i]: v for i, v in point.items()}), None


def keep(where: Optional[tuple], satisfiable: bool, point: Optional[dict]) -> None:
    if where is None:
        return
    kept, k, names = where
    if len(kept) >= MAX_KEPT:
        kept.clear()
    index = {n: i for i, n in enumerate(names)}
    kept[k] = (satisfiable, None if point is None else {index[n]: v for n, v in point.items() if n in index})
