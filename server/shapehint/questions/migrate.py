"""Q1 static migration and Q2 migration under arithmetic constraints (ECOOP'24 §2–5).

For a function, the migration space is non-empty when some static shapes of its parameters
pass every precondition of its body. A provable error in the body means no static migration
exists (status "none"): the parameter dimensions the failing constraint mentions can only be
`Dyn`, with the error's message as the reason. Otherwise one migration is the smallest model
(deterministic: each dimension minimised in order) of the facts plus the user's constraints;
constraints that clash are reported with the facts they contradict.

A parameter whose rank nothing in the body fixes (`def forward(self, x): return self.fc(x)`:
any rank ≥ 1 passes) has no shape to offer; as the paper searches ranks 1..4, the function is
analysed again with such parameters given ranks, from the fewest axes the body allows up, and
the first ranks that give a static migration are the answer (`_search_ranks`) — provided the
analysis followed every operation on tensors there (`Interp.gave_up_in`): an operation it cannot
follow objects to no rank, so finding none of its errors would vouch for nothing.
"""
from __future__ import annotations

import itertools
from typing import Optional

from ..analysis.frames import Cancelled
from ..shapes.expr import Expr
from ..shapes.shape import conj, eq, ge
from ..shapes.values import NoneV, TensorV
from .assume import parse_assumption, to_pred
from .assumed import assumed_inputs, has_default
from .common import (consistent, default_assumptions, display, never_returns, param_symbols,
                     rank_tested, tensor_params)

# The rank search: at most this many analyses of the function per migration, ranks tried per
# parameter from the fewest axes the body allows, and interpreter steps of those analyses together
# (the module body, imports included, runs in each: ~700 for a function of a 2,000-line model
# file, ~32,000 where a package's siblings are imported) per function and per `answer_migration`
# — counted in steps, not seconds, so answers do not depend on the machine.
MAX_RANK_TRIALS = 12
RANKS_TRIED = 4
SEARCH_STEPS = 20_000
SEARCH_STEPS_PER_ANSWER = 100_000
TYPICAL_SIZE = 8


def migratable_functions(session) -> list:
    it = session.interp
    out = []
    for f in it.functions:
        if f.node.name == "__init__" or f.qualname in out:
            continue  # (a nested function is defined again by each run of the body around it)
        if tensor_params(session, f.qualname):
            out.append(f.qualname)
    return out


def answer_migration(session, assume: list = (), only: Optional[str] = None) -> list:
    session.ensure_generic(None if only is None else {only})
    budget = [SEARCH_STEPS_PER_ANSWER]
    return [migrate_function(session, q, assume, budget=budget) for q in migratable_functions(session) if only in (None, q)]


def migrate_function(session, qualname: str, assume=(), search: bool = True, budget: Optional[list] = None) -> dict:
    """The migration of one function. `search`: try ranks for parameters of unknown rank, within
    `budget` ([interpreter steps left], shared by the calls it is passed to)."""
    session.ensure_generic({qualname})  # a warm session restored its summary without solver state
    it = session.interp
    store = it.generic_stores.get(qualname)
    if store is None:  # its analysis ran out of budget (or raised): nothing is known
        return {"function": qualname, "status": "unknown", "params": [], "clash": []}
    params = tensor_params(session, qualname)
    # its own provable errors, and those its direct calls hit with its arguments (a helper's
    # `einsum`, a block's conv): a migration must pass every precondition on its path
    fails = [f for f in it.reporter.failures
             if (f.function == qualname and f.context == "") or f.context.startswith(f"called from {qualname} (")]
    extra = []
    fr = session.generic_frame(qualname)
    for text in assume:
        scope, node = parse_assumption(text)
        if scope is not None and scope != qualname:
            continue
        extra.append((to_pred(it, fr, node, text), text))
    out = {"function": qualname, "status": "static", "params": [], "clash": []}
    for f in fails:
        s = f.span
        out["clash"].append({"line": s.line, "col": s.col, "end_line": s.end_line, "end_col": s.end_col,
                             "severity": "error", "code": f.code, "message": f.message, "related": []})
    syms = param_symbols(params)
    mentioned = set().union(*[f.pred.symbols() for f in store.facts])
    syms += [n for n in _inputs_besides(session, qualname, params) if n not in syms and (n in mentioned or n in it.env.dims)]
    fail_syms = set().union(*[f.pred.symbols() for f in fails]) if fails else set()
    # the smallest model first: when there is one, the constraints are consistent with the facts
    # a batch of 2 where the facts allow it: one sample is rarely meant, and layers that
    # normalise over the batch (BatchNorm in training mode) need more than one value per channel
    two = [eq(t.shape.dims[0], 2) for t in params.values() if t.shape.rank is not None and t.shape.rank >= 2
           and len(t.shape.dims[0].symbols()) == 1]
    # the model as `Cls()` builds it first: its constructor's defaults (common.default_assumptions)
    user = [p for p, _ in extra]
    defaults = consistent(store, default_assumptions(session, qualname), user)
    # sizes the code leaves to the constructor (`nn.ConvTranspose2d(c, c // 2, 2)` with no default
    # for c) at a size layers are built with, where the facts allow: the smallest, 1, builds
    # layers with no channels at all
    wide = [ge(Expr.sym(n), TYPICAL_SIZE) for n in _inputs_besides(session, qualname, params)
            if n in syms and not has_default(session, qualname, n)]
    prefs = [p for p in ([*two, *wide], two, wide) if p]
    model = None
    for base in ([*user, *defaults], user) if defaults else (user,):
        model = next((m for p in prefs if (m := store.model(base + p, names=syms, minimize=syms)) is not None),
                     None) or store.model(base, names=syms, minimize=syms)
        if model is not None:
            break
    if extra and model is None:
        ok, core = store.possible(conj(*[p for p, _ in extra]))
        if ok is False:
            out["status"] = "none"
            lines = sorted({o[0].line for o in core if o})
            out["clash"].append({"line": session.result.functions[qualname].line, "col": 0, "end_line": session.result.functions[qualname].line,
                                 "end_col": 0, "severity": "error", "code": "SH401",
                                 "message": f"the constraints {', '.join(t for _, t in extra)} contradict "
                                            + (f"lines {', '.join(map(str, lines))}" if lines else "the program"),
                                 "related": [{"line": o[0].line, "col": o[0].col, "message": o[1]} for o in core if o]})
    if out["status"] != "none" and model is None:
        out["status"] = "unknown"
    if model is not None:
        out.update(assumed_inputs(session, qualname, _inputs_besides(session, qualname, params), model, store,
                                  TYPICAL_SIZE))
    for name, t in params.items():
        out["params"].append(_param(session, qualname, name, t, model, store, fail_syms, fails))
    if fails:
        out["status"] = "none"
    elif out["status"] == "static" and any(p["shape"] is None for p in out["params"]):
        out["status"] = "partial"
        if search:
            return _search_ranks(session, qualname, assume, params, budget) or out
    elif out["status"] == "static" and search:
        return _as_built(session, qualname, assume, _recheck_ranks(session, qualname, assume, params, out, budget),
                         budget)
    return out


def _inputs_besides(session, qualname: str, params: dict) -> list:
    """The names of what the function's sizes may depend on besides its tensors: its own other
    parameters and its class's constructor parameters (a config's attributes are named under
    theirs, `config.hidden_size`)."""
    fn = session.function(qualname)
    if fn is None:
        return []
    names = [p.arg for p in _params(fn.node)[1 if fn.cls is not None else 0:] if p.arg not in params]
    init = fn.cls.lookup("__init__") if fn.cls is not None else None
    if init is not None and hasattr(init, "node"):
        names += [p.arg for p in _params(init.node)[1:]]
    return list(dict.fromkeys(names))


def _params(node) -> list:
    a = node.args
    return a.posonlyargs + a.args + a.kwonlyargs


def _recheck_ranks(session, qualname: str, assume, params: dict, out: dict, budget: Optional[list]) -> dict:
    """A rank learned from a use behind a test of that rank (`if x.dim() == 4: x = self.conv(x)`)
    leaves the test undecided in the generic analysis, and what its arm required is not a fact
    after it: analysed again with the ranks given, the test is decided and the migration meets
    the arm's preconditions — or those ranks fail, and the fewest axes that pass are searched."""
    tested = rank_tested(session, qualname) & {n for n, t in params.items() if t.shape.rank is not None}
    if not tested:
        return out
    found = search_ranks(session, qualname, assume, params, budget,
                         start={n: len(params[n].shape.dims) for n in tested})
    return found[0] if found else out


def _as_built(session, qualname: str, assume, out: dict, budget: Optional[list]) -> dict:
    """The proposal for the model its class's defaults build. The generic instance opens a `None`
    default (`downsample=None`: a caller may pass a layer), so `if self.downsample is not None:`
    joins both arms and what the `None` arm requires (`out += identity`: the widths agree) is no
    fact; but the proposal's model is built with its defaults and takes that arm. Analysed again
    with the instance as built, the proposal meets the arm's preconditions — the first one is
    kept where that analysis cannot vouch for one (an operation it could not follow)."""
    fn = session.function(qualname)
    init = fn.cls.lookup("__init__") if fn is not None and fn.cls is not None else None
    if out["status"] != "static" or session.interp.as_built or not hasattr(init, "defaults") \
            or not any(isinstance(v, NoneV) for v in init.defaults.values()):
        return out
    from ..analysis.engine import parse, run
    from ..analysis.imports import parsed_module
    if budget is not None and budget[0] <= 0:
        return out
    ranks = {p["name"]: len(p["shape"]) for p in out["params"] if p["shape"] is not None}
    try:
        tried = run(session.result.text, session.result.path, records=False, functions={qualname},
                    ranks={qualname: ranks}, as_built=True,
                    parsed=parsed_module(session.result.path, session.result.text, parse))
        got = migrate_function(tried, qualname, assume, search=False)
    except Cancelled:
        raise
    except (Exception, RecursionError):  # a bug costs this refinement, not the answer
        return out
    if budget is not None:
        budget[0] -= tried.result.stats.get("steps", 0) or 1
    if got["status"] != "static" or tried.interp.gave_up_in.get(qualname) or never_returns(tried, qualname):
        return out
    for mine, theirs in zip(got["params"], out["params"]):
        mine["reason"] = mine["reason"] or theirs["reason"]
    return got


def _fewest_first(n: int):
    """Every way to add axes to n parameters (at most RANKS_TRIED - 1 each), fewest in all first;
    lazily, since a function may have many parameters of unknown rank."""
    for t in range((RANKS_TRIED - 1) * n + 1):
        yield from _spread(t, n)


def _spread(t: int, n: int):
    if n == 0:
        if t == 0:
            yield ()
        return
    for first in range(min(t, RANKS_TRIED - 1) + 1):
        for rest in _spread(t - first, n - 1):
            yield (first,) + rest


def _search_ranks(session, qualname: str, assume, params: dict, budget: Optional[list]) -> Optional[dict]:
    found = search_ranks(session, qualname, assume, params, budget)
    return found[0] if found else None


def search_ranks(session, qualname: str, assume, params: dict, budget: Optional[list],
                 start: Optional[dict] = None) -> Optional[tuple]:
    """(the migration, the analysis it came from) with ranks given to the parameters of unknown
    rank (the fewest axes first), or None when no ranks tried give a static one. `start`
    ({parameter: rank}): ranks the generic analysis learned, tried first, then from one axis up."""
    from ..analysis.engine import parse, run
    from ..analysis.imports import parsed_module
    lows = {}
    for name, t in params.items():
        if t.shape.rank is None:
            lows[name] = max(len(t.shape.dims) + len(t.shape.suffix), 1)
    lows.update(dict.fromkeys(start or (), 1))
    names = list(lows)
    first = tuple(start[n] - lows[n] if start and n in start else 0 for n in names)
    left = min(SEARCH_STEPS, budget[0]) if budget is not None else SEARCH_STEPS
    if left <= 0:
        return None
    spent = 0
    # once for all the tries of all the functions (trees are never changed; the cache of parses
    # shared by analyses is bounded by source size)
    parsed = parsed_module(session.result.path, session.result.text, parse)
    tries = itertools.chain([first], (e for e in _fewest_first(len(names)) if e != first)) if start else \
        _fewest_first(len(names))
    for extra in itertools.islice(tries, MAX_RANK_TRIALS):
        if spent >= left:
            return None
        ranks = {n: lows[n] + e for n, e in zip(names, extra)}
        try:
            tried = run(session.result.text, session.result.path, parsed=parsed, records=False, functions={qualname},
                            ranks={qualname: ranks})
            got = migrate_function(tried, qualname, assume, search=False)
        except Cancelled:
            raise
        except (Exception, RecursionError):  # a bug costs this try, not the answer the search began from
            return None
        steps = tried.result.stats.get("steps", 0) or 1
        spent += steps
        if budget is not None:
            budget[0] -= steps
        if tried.interp.gave_up_in.get(qualname) or never_returns(tried, qualname):
            # an operation the analysis could not follow at these ranks would have let them
            # through (`F.conv2d` with a weight of unknown rank): they cannot be vouched for; nor
            # can ranks every path raises at (`else: raise ValueError("wrong rank")`)
            continue
        if got["status"] == "static":
            for p in got["params"]:
                if p["name"] in ranks:
                    p["reason"] = f"the code does not fix its rank; {ranks[p['name']]} is the first that passes"
            return got, tried
    return None


def _param(session, qualname, name, t: TensorV, model, store, fail_syms, fails) -> dict:
    s = t.shape
    item = {"name": name, "ranks": [s.rank] if s.rank is not None else [], "shape": None, "dyn_dims": [],
            "reason": None, "forced": [], "names": []}
    if s.rank is None:
        item["reason"] = "the rank is not determined by the code"
        return item
    shape, forced, names = [], [], []
    for i, d in enumerate(s.dims):
        shown = display(session, qualname, d)
        if d.is_const:
            names.append(d.value)
        elif all(n.startswith("?") for n in shown.symbols()):
            names.append(f"{name}.shape[{i}]")  # an anonymous dimension (`Dyn`): named by its place
        else:
            names.append(str(shown))
        if d.symbols() & fail_syms:
            item["dyn_dims"].append(i)
            item["reason"] = fails[0].message
            shape.append("?")
            forced.append(None)
            continue
        v = d.subs(model).value if model is not None else None
        shape.append(v if v is not None else "?")
        forced.append(d.value if d.is_const else (d, v) if v is not None else None)
    # the dimensions the facts pin to the value the model gives (asked together: one propagation)
    asks = [i for i, f in enumerate(forced) if isinstance(f, tuple)]
    for i, yes in zip(asks, store.forced([forced[i] for i in asks])):
        forced[i] = forced[i][1] if yes else None
    item.update(shape=shape, forced=forced, names=names)
    return item
