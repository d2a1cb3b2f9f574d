"""The only module that talks to Z3 (imported lazily, so the server starts fast).

`FactStore` holds the facts known at a program point (annotations, assertions, preconditions
of operations that already passed, path conditions), each tagged with where it came from,
and answers the questions the analysis asks:
  - `possible(p)`: is some admissible input consistent with facts ∧ p? (no → provable error,
    with an unsat core mapped back to the facts' origins);
  - `entails(p)`: do the facts force p?
  - `model`, `value_range` and `unique_value` for migrations and shape holes.
Ground and syntactically decided predicates never reach Z3, most others are decided by
`bounds.py` (intervals, candidate points, `witness.py`'s points) first. Every Z3 query runs under a
deterministic resource limit (`rlimit`) and a wall-clock guard; `unknown` is never an error.
Z3 contexts are lent by `contexts.py`, so an interrupt reaches only the job using one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional

from ..shapes.expr import Atom, Expr
from ..shapes.shape import Pred, eq, gt, neg
from . import alike, answers, bounds
from .contexts import Limits, Session, borrow_context, check_within  # noqa: F401 (Limits: its users import it here)


@dataclass
class Fact:
    pred: Pred
    origin: Any = None  # (Span, label) or None for built-in facts


class Unknown(Exception):
    """The solver gave up (limit reached or interrupted)."""


# the incremental solver is rebuilt past this many guarded facts per fact a query needs (plus the slack)
SHED_FACTOR, SHED_SLACK = 4, 64
_REFUTED_WITH_FACTS = "refuted with facts"  # FactStore._refuted_by_bounds: not yet asked without them


class FactStore:
    def __init__(self, limits: Optional[Limits] = None, on_create: Optional[Callable] = None,
                 session: Optional["Session"] = None, lower: Optional[dict] = None):
        self.limits = limits or Limits()
        self.session = session
        self.facts: list[Fact] = []
        self._marks: list[int] = []
        self.epoch = 0  # changes with every add, push, pop and bound: what a store said then, it says now
        # symbol -> lower bound (default 1); an interpreter's stores share one (`lower`): a symbol
        # made while one store was in use (an `int(flag)` in a layer's __init__) keeps its bound in
        # every store its value reaches (the forward's)
        self.lower: dict[str, int] = lower if lower is not None else {}
        self.upper: dict[str, int] = {}
        self._z3 = None
        self._ctx = None
        self._vars: dict[str, Any] = {}
        self._atoms: dict = {}  # Atom -> its Z3 term (`_enc_atom`), in the context `_vars` are of
        self._lits: dict = {}  # id(Fact) -> (Fact, literal): facts already asserted in the solver
        self._solver = None
        self._nlits = 0
        self._cache: dict = {}
        self._slices: dict = {}  # (the relevant facts' predicates, query) -> answer without a core (_check)
        # the query cache's name for the facts as they are: one id per fact sequence, interned by
        # (the id of the sequence without its last fact, that fact), kept parallel to `facts`, so
        # a query's key costs O(1), not a hash of every fact of its path (`_state`)
        self._states: dict = {}
        self._chain: list = []
        self._chain_of: Optional[list] = None  # the list `_chain` describes (questions swap `facts`)
        self._memo: dict = {}  # bounds.py's per-predicate work, reused across this store's queries
        self._by_bounds_memo: dict = session.by_bounds if session is not None else {}
        self._hint: dict = {}  # the last model found (symbol -> int): the next query's first guess
        self._on_create = on_create
        self.queries = 0
        # questions asked of the facts (not counting those a constant answers): a call that asked
        # none did not depend on them (analysis/callmemo.py answers it for any caller)
        self.reads = 0
        self.interrupted = False

    # ---- facts ----------------------------------------------------------
    def take_facts(self, facts: list) -> None:
        """Make `facts` this store's facts, as they are (a probe asked about one set of facts
        after another: questions/common.probe_store); nothing else of the store changes."""
        self.facts = facts

    def add(self, pred: Pred, origin: Any = None) -> None:
        if pred.is_true:
            return
        self.facts.append(Fact(pred, origin))
        self.epoch += 1

    def push(self) -> None:
        self._marks.append(len(self.facts))
        self.epoch += 1

    def pop(self) -> None:
        n = self._marks.pop()
        del self.facts[n:]
        del self._chain[n:]
        self.epoch += 1

    def _state(self) -> int:
        """The id of the current fact sequence (see `_states`): equal ids, equal sequences."""
        facts, chain = self.facts, self._chain
        if self._chain_of is not facts or len(chain) > len(facts):
            chain = self._chain = []
            self._chain_of = facts
        states = self._states
        for f in facts[len(chain):]:
            key = (chain[-1] if chain else 0, f.pred)
            sid = states.get(key)
            if sid is None:
                sid = states[key] = len(states) + 1
            chain.append(sid)
        return chain[-1] if chain else 0

    @property
    def depth(self) -> int:
        """How many undecided `if` arms enclose this point (see branching)."""
        return len(self._marks)

    @property
    def branching(self) -> bool:
        """Inside one arm of an undecided `if` (between push and pop): what holds here need not
        hold on the other paths."""
        self.reads += 1
        return bool(self._marks)

    def snapshot(self) -> list[Fact]:
        return list(self.facts)

    def declare(self, name: str, lo: int = 1, hi: Optional[int] = None) -> None:
        self.epoch += 1
        self.lower[name] = lo
        if hi is not None:
            self.upper[name] = hi
        self._slices = {}
        if name in self._vars and self._solver is not None:
            self._solver = None  # bounds changed: rebuild the incremental solver on the next query
            self._lits = {}

    # ---- queries --------------------------------------------------------
    def possible(self, pred: Pred, core: bool = True) -> tuple[Optional[bool], list]:
        """(True, []) if facts ∧ pred is satisfiable; (False, core origins if `core`) if not; (None, []) unknown."""
        if pred.is_false:
            return False, []
        self.reads += 1
        if pred.is_true and not self.facts:
            return True, []
        res = self._check([pred], want_core=core)
        return (None, []) if res is None else res

    def entails(self, pred: Pred) -> bool:
        if pred.is_true:
            return True
        self.reads += 1
        if pred.is_false:
            return self._check([], want_core=False) == (False, [])
        res = self._check([neg(pred)], want_core=False)
        return res is not None and res[0] is False

    def decide(self, pred: Pred) -> Optional[bool]:
        """True/False when the facts force it, None when both outcomes are possible (or unknown)."""
        if pred.is_true or pred.is_false:
            return pred.is_true
        if self.entails(pred):
            return True
        if self.entails(neg(pred)):
            return False
        return None

    def forced(self, pairs: list) -> list:
        """For each (e, v), v being e's value in some model of the facts: do the facts force
        e == v? A symbol whose interval the facts narrow to v is forced; one model above every
        remaining value shows those are not; `entails` decides the rest."""
        self.reads += 1
        out: list = [None] * len(pairs)
        preds = [f.pred for f in self.facts]
        box = bounds.intervals(preds, self.lower, self.upper, self._memo)
        rest = []
        for i, (e, v) in enumerate(pairs):
            names = e.symbols()
            if box is not None and len(names) == 1 and e == Expr.sym(next(iter(names))):
                n = next(iter(names))
                if box[0].get(n, self.lower.get(n, 1)) == v == box[1].get(n):
                    out[i] = True
                    continue
            rest.append(i)
        if rest and bounds.solve(preds + [gt(pairs[i][0], pairs[i][1]) for i in rest], self.lower, self.upper,
                                 memo=self._memo)[0] == "sat":
            for i in rest:
                out[i] = False
        return [self.entails(eq(e, v)) if got is None else got for got, (e, v) in zip(out, pairs)]

    def model(self, extra: Iterable[Pred] = (), names: Iterable[str] = (),
              minimize: Iterable[str] = ()) -> Optional[dict]:
        """A satisfying assignment (the lexicographically smallest values of `minimize`, in
        order), or None."""
        self.reads += 1
        preds = list(extra)
        names, minimize = list(names), list(minimize)
        verdict, point = bounds.solve([f.pred for f in self.facts] + preds, self.lower, self.upper, minimize,
                                      self._memo)
        if verdict == "unsat":
            return None
        if verdict == "sat":
            for n in names:
                point.setdefault(n, self.lower.get(n, 1))
            return point
        z3 = self._load()
        s = self._new_solver(optimize=bool(minimize))
        for f in self.facts:
            s.add(self._enc_pred(f.pred))
        for p in preds:
            s.add(self._enc_pred(p))
        for n in names:
            self._var(n)
        self._bounds(s)
        for n in minimize:
            s.minimize(self._var(n))
        self.queries += 1
        key = answers.model_key(self.facts, preds, names, minimize, self._vars, self.lower, self.upper,
                                (self.limits.timeout_ms, self.limits.rlimit))
        known, point = answers.recall_model(key)  # (the rank search asks again: answers.py)
        if known:
            return point
        r = s.check()
        if r != z3.sat:
            if r == z3.unsat:
                answers.keep_model(key, None)
            return None
        m = s.model()
        out = {}
        for n in set(names) | set(self._vars):
            v = m.eval(self._var(n), model_completion=True)
            try:
                out[n] = v.as_long()
            except AttributeError:
                pass
        answers.keep_model(key, out)
        return out

    def value_range(self, e: Expr, extra: Iterable[Pred] = ()) -> tuple[Optional[int], Optional[int]]:
        """(lo, hi) of e under the facts; None for an unbounded side. Raises Unknown."""
        self.reads += 1
        z3 = self._load()
        out = []
        for sense in ("min", "max"):
            s = self._new_solver(optimize=True)
            for f in self.facts:
                s.add(self._enc_pred(f.pred))
            for p in extra:
                s.add(self._enc_pred(p))
            self._bounds(s)
            t = self._enc(e)
            h = s.minimize(t) if sense == "min" else s.maximize(t)
            self.queries += 1
            r = s.check()
            if r != z3.sat:
                raise Unknown("no model")
            v = s.lower(h) if sense == "min" else s.upper(h)
            try:
                out.append(v.as_long())
            except AttributeError:
                out.append(None)  # infinite
        return out[0], out[1]

    def release(self) -> None:
        """Drop the Z3 objects (they hold most of a finished analysis's memory); the facts stay,
        and a later question rebuilds what it needs."""
        self._solver, self._vars, self._atoms, self._lits = None, {}, {}, {}
        self._cache, self._slices, self._memo = {}, {}, {}
        self._z3, self._ctx = None, None

    def interrupt(self) -> None:
        self.interrupted = True
        ctx = self._ctx  # read once: the job may release it meanwhile (then there is nothing to stop)
        if ctx is not None:
            ctx.interrupt()

    # ---- internals --------------------------------------------------------
    def _load(self):
        if self._z3 is None:
            import z3  # lazy: keeps server start-up light
            self._z3 = z3
            self._ctx = self.session.context() if self.session is not None else borrow_context()
            if self._on_create is not None:
                self._on_create(self)
        return self._z3

    def _new_solver(self, optimize: bool = False):
        z3 = self._z3
        s = z3.Optimize(ctx=self._ctx) if optimize else z3.SolverFor("QF_NIA", ctx=self._ctx)
        if optimize:
            s.set(**self.limits.optimizer())
        elif self.limits.rlimit:
            s.set(timeout=self.limits.timeout_ms, rlimit=self.limits.rlimit)
        else:
            s.set(timeout=self.limits.timeout_ms)
        return s

    def _bounds(self, s) -> None:
        for name, v in self._vars.items():
            s.add(v >= self.lower.get(name, 1))
            if name in self.upper:
                s.add(v <= self.upper[name])

    def _check(self, extra: list[Pred], want_core: bool):
        if self.interrupted:
            return None
        key = (self._state(), tuple(extra), want_core)
        if key in self._cache:
            return self._cache[key]
        # Facts about symbols unrelated to the query cannot make it unsatisfiable unless they are
        # unsatisfiable themselves, which an earlier query would have reported: assume only the slice.
        facts = bounds.relevant(self.facts, extra)
        # without a core, the answer is the slice's: a set of predicates, whatever else the facts hold
        skey = None if want_core else (frozenset(f.pred for f in facts), key[1])
        if skey in self._slices:
            out = self._cache[key] = self._slices[skey]
            return out
        verdict = self._decide_without_z3([f.pred for f in facts] + list(extra))
        if verdict is not None and not self.interrupted:
            out = (verdict, [])
            if verdict is False and want_core:
                kept = bounds.unsat_core([f.pred for f in facts], list(extra), self.lower, self.upper, self._memo)
                out = None if kept is None else (False, [facts[i].origin for i in kept if facts[i].origin is not None])
            if out is not None:
                self._cache[key] = out
                if skey is not None:
                    self._slices[skey] = out
                return out
        bkey = answers.bounds_key(extra, self.lower, self.upper) if skey is not None and facts else None
        if bkey is not None and self._refuted_by_bounds(bkey, extra):
            out = self._cache[key] = self._slices[skey] = (False, [])
            return out
        # a definite answer Z3 gave any store of the process for the same slice (answers.py)
        rlimit = self._rlimit()
        gkey = answers.key(skey[0], key[1], self.lower, self.upper, (self.limits.timeout_ms, rlimit)) \
            if skey is not None else None
        got, where = answers.recall(gkey), None
        if got is None:  # the same formula of other symbols, asked before in this job (alike.py)
            got, where = alike.recall(getattr(self.session, "alike", None), frozenset(f.pred for f in facts),
                                      key[1], self.lower, self.upper, (self.limits.timeout_ms, rlimit), want_core)
        if got is not None:
            self.queries += 1
            out = (got[0], [])
            self._hint.update(got[1] or {})
        else:
            z3 = self._load()
            self._shed(len(facts) + len(extra))
            s = self._incremental()
            lits = [self._literal(f) for f in facts]
            # the query itself is a guarded assertion too: no push/pop (that costs more than the check)
            qlits = [self._literal(Fact(p, None), cache=False) for p in extra]
            r = self._solve(s, qlits + lits, rlimit)
            if self.interrupted:
                return None  # an interrupt may land before check() starts: never trust that answer
            if r == z3.sat:
                out = (True, [])
                point = self._remember_model(s, facts, extra)
                answers.keep(gkey, True, point)
                alike.keep(where, True, point)
            elif r == z3.unsat:
                core = []
                if want_core:
                    names = {str(c) for c in s.unsat_core()}
                    core = [f.origin for f, lit in zip(facts, lits) if str(lit) in names and f.origin is not None]
                out = (False, core)
                answers.keep(gkey, False, None)
                alike.keep(where, False, None)
            else:
                out = None
        if bkey is not None and out is not None:  # sat with facts: sat without; unsat: ask again (below)
            self._by_bounds_memo[bkey] = False if out[0] else self._by_bounds_memo.get(bkey, _REFUTED_WITH_FACTS)
        if len(self._cache) > 20000:
            self._cache.clear()
            self._slices.clear()
        self._cache[key] = out
        if skey is not None and out is not None:
            self._slices[skey] = out
        return out

    def _refuted_by_bounds(self, bkey: tuple, extra: list) -> bool:
        """Is the query unsatisfiable under its symbols' bounds alone, whatever the facts? Asked once per
        query and bounds in a job, only of a query Z3 refuted before under other facts (a padded size's
        slice bound `0 <= H + (-H%7)%7 - 7`, at every window of a model): a satisfiable one can take 0.5 s."""
        memo = self._by_bounds_memo
        if memo.get(bkey) is not _REFUTED_WITH_FACTS:
            return memo.get(bkey) is True
        verdict = "sat" if bounds.quick_sat(extra, self.lower, self.upper) else \
            bounds.solve(extra, self.lower, self.upper, memo=self._memo)[0]
        if verdict is None:
            z3 = self._load()
            r = self._solve(self._incremental(), [self._literal(Fact(p, None), cache=False) for p in extra], self._rlimit())
            if self.interrupted or r == z3.unknown:
                return False
            verdict = "unsat" if r == z3.unsat else "sat"
        memo[bkey] = verdict == "unsat"
        return memo[bkey]

    def _decide_without_z3(self, preds: list) -> Optional[bool]:
        return bounds.decide_without_z3(preds, self.lower, self.upper, self._memo, self._hint)

    def _remember_model(self, s, facts: list, extra: list) -> None:
        """Z3's model of a satisfiable query, as the next queries' first guess (bounds.hinted_sat)."""
        names: set = set()
        for p in [f.pred for f in facts] + list(extra):
            names |= p.symbols()
        try:
            m = s.model()
            point = {n: m.eval(self._vars[n], model_completion=True).as_long() for n in names if n in self._vars}
        except Exception:  # noqa: BLE001 (a model Z3 cannot give is only a lost hint)
            return None
        self._hint.update(point)
        return point

    def _rlimit(self) -> int:  # the job's share (contexts.Session.rlimit)
        return self.limits.rlimit if self.session is None else self.session.rlimit(self.limits.rlimit)

    def _solve(self, s, assumptions: list, rlimit: int):
        self.queries += 1
        r = check_within(self._z3, s, assumptions, rlimit)
        if r == self._z3.unknown and self.session is not None and rlimit == self.limits.rlimit and not self.interrupted:
            self.session.undecided += 1
        return r

    def _shed(self, needed: int) -> None:
        """Start the solver afresh when it holds far more guarded facts than a query needs: an
        unassumed fact is still internalized, and its products and floor divisions weigh on every
        later query (big_bird: `i != 1` over a slice of 14 facts took 0.9 s in a solver of 600
        assertions, 10 ms in one of its own, and 205 of its queries stopped undecided, none then).
        The formula asked is the same, so is a definite answer."""
        if self._solver is not None and len(self._lits) > SHED_FACTOR * needed + SHED_SLACK:
            self._solver, self._lits = None, {}

    def _incremental(self):
        if self._solver is None:
            self._solver = self._new_solver()
            for name, v in self._vars.items():
                self._bound(name, v)
        return self._solver

    def _literal(self, f: Fact, cache: bool = True):
        key = id(f) if cache else ("q", f.pred)
        entry = self._lits.get(key)
        if entry is not None and (entry[0] is f or not cache):
            return entry[1]
        self._nlits += 1
        lit = self._z3.Bool(f"f{self._nlits}_{id(self)}", self._ctx)
        self._solver.add(self._z3.Implies(lit, self._enc_pred(f.pred)))
        self._lits[key] = (f, lit)
        return lit

    def _bound(self, name: str, v) -> None:
        if self._solver is not None:
            self._solver.add(v >= self.lower.get(name, 1))
            if name in self.upper:
                self._solver.add(v <= self.upper[name])

    def _var(self, name: str):
        v = self._vars.get(name)
        if v is None:
            v = self._z3.Int(name, self._ctx)
            self._vars[name] = v
            self._bound(name, v)
        return v

    def _enc(self, e: Expr):
        z3 = self._load()
        total = None
        for m, c in e.terms.items():
            term = z3.IntVal(c, self._ctx)
            for a in m:
                term = term * self._enc_atom(a)
            total = term if total is None else total + term
        return total if total is not None else z3.IntVal(0, self._ctx)

    def _enc_atom(self, a: Atom):
        if a.kind == "sym":
            return self._var(a.name)
        # once per atom: a size's operations share their operands (a deep model's spatial size,
        # `max`s and `//`s over the same sub-sizes), and encoding the tree, not the DAG, took 40 s
        done = self._atoms.get(a)
        if done is None:  # (Z3's integer division is floor division for positive divisors)
            z3, (x, y) = self._z3, (self._enc(v) for v in a.args)
            done = self._atoms[a] = (x / y if a.kind == "floordiv" else x % y if a.kind == "mod" else
                                     z3.If(x >= y, x, y) if a.kind == "max" else z3.If(x <= y, x, y))
        return done

    def _enc_pred(self, p: Pred):
        z3 = self._load()
        if p.op in ("true", "false"):
            return z3.BoolVal(p.op == "true", self._ctx)
        if p.op in ("and", "or"):
            return (z3.And if p.op == "and" else z3.Or)(*[self._enc_pred(a) for a in p.args])
        if p.op == "not":
            return z3.Not(self._enc_pred(p.args[0]))
        a, b = (self._enc(x) for x in p.args)
        return {"==": lambda: a == b, "!=": lambda: a != b, "<=": lambda: a <= b, "<": lambda: a < b}[p.op]()
