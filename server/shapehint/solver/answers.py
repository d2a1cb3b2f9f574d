"""Z3's definite answers, shared by every fact store of the process.

A store remembers its own answers (`FactStore._slices`: per set of the relevant facts' predicates
and query), but each analysis has its stores, and the migration's rank search analyses a file
again for every rank it tries, each context of a model's windowed attention asks again: tv_swin
asked Z3 441 questions of which 188 were repeats of one asked before in another store, 2.6 of its
14 CPU s. Satisfiability depends only on the predicates and their symbols' declared bounds (the
same slice the store's own cache assumes), so a definite answer holds wherever the same formula
is asked; an undecided one (a timeout) is never kept, so such a query asks Z3 again. A satisfiable
answer keeps its model's values too: the asking store takes them as its next guess, as it takes
Z3's (`FactStore._hint`). Bounded: cleared past MAX_ANSWERS.

What the bounds decide before Z3 (bounds.decide_without_z3) is shared alike (`recall_decided`):
each factory of a file of windowed transformers runs its model's forward in a context of its own,
and every window's slice asks its store what the contexts before asked theirs (tv_swin: 6,222 of
its 8,060 such questions were repeats, 3 of its 14 CPU s). A verdict is kept with the point the
asker took as its next guess; an undecided one too (its propagation and witness search depend on
the formula and the bounds only), after which each asker still tries its own last model.
"""
from __future__ import annotations

import threading
from typing import Optional

MAX_ANSWERS = 20000

_ANSWERS: dict = {}
_DECIDED: dict = {}
_MODELS: dict = {}  # model_key -> the model's values, or None where there is none (unsat)  # the same key -> (True, False or None, the point taken as the next guess or None)
_LOCK = threading.Lock()


def key(preds: frozenset, query: tuple, lower: dict, upper: dict, limits: tuple) -> tuple:
    """`limits`: the query's (timeout in ms, resource limit): an answer is recalled only for a
    query asked under the same ones, so that a job's answers do not depend on the jobs before it."""
    names: set = set()
    for p in preds:
        names |= p.symbols()
    for p in query:
        names |= p.symbols()
    return preds, query, tuple(sorted((n, lower.get(n, 1), upper.get(n)) for n in names)), limits


def recall(k: Optional[tuple]) -> Optional[tuple]:
    """(satisfiable, the model's values or None) of a formula Z3 decided, or None."""
    return None if k is None else _ANSWERS.get(k)


def keep(k: Optional[tuple], satisfiable: bool, point: Optional[dict]) -> None:
    if k is None:  # a query asked with a core: its answer is the store's alone
        return
    with _LOCK:
        if len(_ANSWERS) >= MAX_ANSWERS:
            _ANSWERS.clear()
        _ANSWERS[k] = (satisfiable, point)


def bounds_key(query: list, lower: dict, upper: dict) -> tuple:
    """A query with its symbols' bounds, without the facts: the key of the job's memo of queries
    refuted by the bounds alone (`FactStore._refuted_by_bounds`, `contexts.Session.by_bounds`)."""
    names = sorted(set().union(*(p.symbols() for p in query)))
    return tuple(query), tuple(lower.get(n, 1) for n in names), tuple(upper.get(n) for n in names)


def recall_decided(k: tuple) -> Optional[tuple]:
    """(verdict or None when undecided, point or None) the bounds gave for that formula, or None."""
    return _DECIDED.get(k)


def keep_decided(k: tuple, got: tuple) -> None:
    with _LOCK:
        if len(_DECIDED) >= MAX_ANSWERS:
            _DECIDED.clear()
        _DECIDED[k] = got


def model_key(facts: list, extra: list, names: list, minimize: list, declared: dict, lower: dict, upper: dict,
              limits: tuple) -> tuple:
    """What `FactStore.model` asks Z3 (`declared`: the store's symbols, each bounded in the query
    and read back from the model)."""
    return (tuple(f.pred for f in facts), tuple(extra), tuple(names), tuple(minimize),
            tuple((n, lower.get(n, 1), upper.get(n)) for n in declared), limits)


def recall_model(k: tuple) -> tuple:
    """(True, a copy of the values or None) for a query answered before, else (False, None)."""
    if k not in _MODELS:
        return False, None
    got = _MODELS[k]
    return True, (None if got is None else dict(got))


def keep_model(k: tuple, point: Optional[dict]) -> None:
    with _LOCK:
        if len(_MODELS) >= MAX_ANSWERS:
            _MODELS.clear()
        _MODELS[k] = None if point is None else dict(point)
