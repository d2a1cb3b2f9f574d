"""Shared by the questions: tensor parameters, witnesses, display names (over an AnalysisSession)."""
from __future__ import annotations

import ast
from typing import Optional

from ..frontend.walk import walk
from ..shapes.expr import Expr
from ..shapes.shape import conj, eq
from ..shapes.values import IntV, TensorV
from ..solver.facts import FactStore


def tensor_params(session, qualname: str) -> dict:
    it = session.interp
    out = {}
    fn = session.function(qualname)
    sizes = constructor_arguments(fn.node) | _passed_as_sizes(session, fn.node) if fn is not None else frozenset()
    for name, v in (it.param_values.get(qualname) or {}).items():
        if isinstance(v, TensorV) and name not in sizes:
            it.resolve(v)
            out[name] = v
    return out


_CTOR_ARGS: dict = {}


def _passed_as_sizes(session, node) -> frozenset:
    """Parameters passed to the constructor of one of the module's classes in a place that
    constructor passes on to a layer's size (`Block(self.inplanes, planes)`): sizes too."""
    import ast
    classes = {c.name: c for c in session.interp.classes if hasattr(c, "lookup")}
    names = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    out = set()
    for n in walk(node):
        cls = classes.get(n.func.id) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) else None
        init = cls.lookup("__init__") if cls is not None else None
        if init is None or not hasattr(init, "node"):
            continue
        inner = constructor_arguments(init.node)
        params = [a.arg for a in init.node.args.posonlyargs + init.node.args.args][1:]
        passed = list(zip(params, n.args)) + [(k.arg, k.value) for k in n.keywords if k.arg]
        out |= {t.id for p, a in passed if p in inner for t in _size_terms(a) if t.id in names}
    return frozenset(out)


def _size_terms(arg) -> list:
    """The names an argument computes a size from: itself, or the terms of its arithmetic
    (`planes * block.expansion`) — not a name read through (`x.shape[-1]` speaks of a tensor)."""
    import ast
    if isinstance(arg, ast.Name):
        return [arg]
    if isinstance(arg, ast.BinOp):
        return _size_terms(arg.left) + _size_terms(arg.right)
    if isinstance(arg, ast.UnaryOp):
        return _size_terms(arg.operand)
    return []


def constructor_arguments(node) -> frozenset:
    """Parameters passed as such to a torch layer's constructor (`nn.Conv2d(cin, cout, 3)`) or
    to `range`: sizes and counts, not tensors, though the analysis, which learns a parameter's
    kind from its use, may keep one it never sees used as anything else for an unknown tensor.
    (`nn.Parameter`/`nn.Buffer` wrap tensors; the user's own classes may take tensors too.)"""
    got = _CTOR_ARGS.get(id(node))
    if got is not None and got[0] is node:
        return got[1]
    import ast
    names = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    out = set()
    for n in walk(node):
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        layer = isinstance(f, ast.Attribute) and f.attr[:1].isupper() and f.attr not in ("Parameter", "Buffer") \
            and isinstance(f.value, (ast.Name, ast.Attribute)) and \
            (f.value.id if isinstance(f.value, ast.Name) else f.value.attr) == "nn"
        if layer or (isinstance(f, ast.Name) and f.id == "range"):
            out |= {a.id for a in list(n.args) + [k.value for k in n.keywords] for a in _size_terms(a)
                    if a.id in names}
    _CTOR_ARGS[id(node)] = (node, frozenset(out))
    return _CTOR_ARGS[id(node)][1]


def default_assumptions(session, qualname: Optional[str] = None) -> list:
    """`p == its default` for each constructor parameter and configuration attribute the analysis
    took as a symbol (analysis/defaults.py: a default is not a fact). The questions add these when
    they choose concrete inputs or decide branches: the model a test or a run builds, `Cls()`,
    really uses its defaults. They are the questions' preference, not the program's facts: a
    question drops them where they contradict the facts or the user's assumptions (`consistent`).
    Symbols are named after the parameter, so a name that the file's constructors give different
    defaults (or none) counts only for the class of `qualname`, as its own `__init__` says."""
    it = session.interp
    if it is None:
        return []
    seen: dict = {}
    for f in it.functions:
        if f.node.name == "__init__" and f.cls is not None:
            for n, v in int_defaults(f).items():
                seen.setdefault(n, set()).add(v)
    table = {n: info.default for n, info in it.env.dims.items()
             if info.default is not None and len(seen.get(n, ())) <= 1}
    fn = session.function(qualname) if qualname is not None else None
    init = fn.cls.lookup("__init__") if fn is not None and fn.cls is not None else None
    if init is not None and hasattr(init, "defaults"):
        for n, v in int_defaults(init).items():
            if v is None:
                table.pop(n, None)
            elif n in it.env.dims:
                table[n] = v
    return [eq(Expr.sym(n), v) for n, v in sorted(table.items())]


def int_defaults(init) -> dict:
    """Each parameter of a constructor -> its int default, None when it has another or none."""
    a = init.node.args
    out = {p.arg: None for p in a.posonlyargs + a.args[1:] + a.kwonlyargs}
    for n, v in init.defaults.items():
        if n in out and isinstance(v, IntV) and v.expr.is_const:
            out[n] = v.expr.value
    return out


def consistent(store: FactStore, defaults: list, extra: list = (), facts: Optional[list] = None,
               about: list = ()) -> list:
    """`defaults` (`default_assumptions`) over symbols the facts (`facts`, else `store`'s), `extra`
    or `about` mention; none when together they contradict the facts and `extra`: then the program
    does not run as built with its defaults, and the question answers for the other constructions."""
    preds = [f.pred for f in (store.facts if facts is None else facts)] + list(extra) + list(about)
    mentioned = set().union(*(p.symbols() for p in preds)) if preds else set()
    used = [d for d in defaults if d.symbols() <= mentioned]
    if not used:
        return []
    if facts is None:
        ok = store.possible(conj(*used, *extra))[0]
    else:
        probe = probe_store(store)
        probe.take_facts(list(facts))
        ok = probe.possible(conj(*used, *extra))[0]
    return used if ok is True else []


def display(session, qualname: str, e: Expr) -> Expr:
    ren = session.interp.sink.renames.get(qualname, {})
    return e.subs({k: Expr.sym(v) for k, v in ren.items()})


def param_symbols(params: dict) -> list:
    """The parameters' symbols in parameter and axis order: the order a smallest model lowers
    them in, so the answer does not depend on the analysis's internal symbol names."""
    return list(dict.fromkeys(s for t in params.values() for d in t.shape.dims for s in sorted(d.symbols())))


def probe_store(store: FactStore) -> FactStore:
    """An empty store with `store`'s symbol bounds, for questions about some of its facts
    (`take_facts`); it shares the analysis's Z3 context (a new context costs ~10 ms)."""
    probe = FactStore(store.limits, session=store.session)
    probe.lower.update(store.lower)
    probe.upper.update(store.upper)
    return probe


def witness(session, qualname: str, store: FactStore, facts: list, extra: list,
            segments: Optional[tuple] = None) -> Optional[dict]:
    """Concrete parameter shapes satisfying `facts ∧ extra`, preferring small values. With
    `segments` = ({parameter: its shape of unknown rank}, n), those parameters get n axes in their
    variadic segment (of size 1: facts only speak of the axes around it)."""
    params = tensor_params(session, qualname)
    syms = param_symbols(params)
    m = small_model([f.pred for f in facts] + list(extra), syms, store.lower, store.upper)
    if m is None:
        probe = probe_store(store)
        probe.take_facts(list(facts))
        m = probe.model(extra, names=syms, minimize=syms)
    if m is None:
        return None
    def size(d):
        v = d.subs(m).value
        return v if v is not None else 1
    out = {}
    shapes, n = segments if segments is not None else ({}, 0)
    for name, t in params.items():
        s = shapes.get(name, t.shape)
        if s.rank is not None:
            out[name] = [size(d) for d in s.dims]
        elif name in shapes:
            out[name] = [size(d) for d in s.dims] + [1] * n + [size(d) for d in s.suffix]
    return out


def small_model(preds: list, prefer: list, lower: dict, upper: dict) -> Optional[dict]:
    """A model of `preds` found without the solver, or None: every symbol at one small value
    (equations in one symbol solved first, bounds in one symbol respected), then each of
    `prefer` lowered as far as the predicates allow. Most witnesses are found this way; the
    optimising solver (~3 ms a query) is the fallback."""
    syms = set(prefer)
    for p in preds:
        syms |= p.symbols()
    solved = _solve_equations(preds)
    lo = dict(lower)
    for name, bound in _lower_bounds(preds).items():
        lo[name] = max(bound, lo.get(name, 1))
    for base in (1, 2, 3, 4, 8, 64):
        env = {n: solved.get(n, max(base, lo.get(n, 1))) for n in syms}
        if not _within(env, lower, upper) or not _holds(preds, env):
            continue
        for n in prefer:
            if n in solved:
                continue
            for v in range(lo.get(n, 1), min(env[n], lo.get(n, 1) + 8)):
                trial = dict(env)
                trial[n] = v
                if _holds(preds, trial):
                    env = trial
                    break
        return env
    return None


def _lower_bounds(preds: list) -> dict:
    """Lower bounds `s >= k` stated by inequalities in one symbol (`2050 < s + 2`)."""
    out: dict = {}
    for p in preds:
        if p.op not in ("<", "<="):
            continue
        d = p.args[1] - p.args[0]  # d > 0 (or >= 0)
        ds = d.symbols()
        if len(ds) != 1:
            continue
        name = next(iter(ds))
        mono = next(iter(Expr.sym(name).terms))
        if set(d.terms) - {(), mono} or d.terms.get(mono) != 1:
            continue
        bound = (1 if p.op == "<" else 0) - d.const_part()
        out[name] = max(bound, out.get(name, bound))
    return out


def _solve_equations(preds: list) -> dict:
    """Values forced by equations `a*s + c == 0` with a = ±1, substituting what is solved."""
    solved: dict = {}
    eqs = [p for p in preds if p.op == "=="]
    for _ in range(3):
        grew = False
        for p in eqs:
            d = (p.args[0] - p.args[1]).subs({k: Expr.const(v) for k, v in solved.items()})
            ds = d.symbols()
            if len(ds) != 1:
                continue
            name = next(iter(ds))
            mono = next(iter(Expr.sym(name).terms))
            if set(d.terms) - {(), mono} or d.terms.get(mono) not in (1, -1):
                continue
            solved[name] = -d.const_part() * d.terms[mono]
            grew = True
        if not grew:
            break
    return solved


def _within(env: dict, lower: dict, upper: dict) -> bool:
    return all(lower.get(n, 1) <= v and (n not in upper or v <= upper[n]) for n, v in env.items())


def _holds(preds: list, env: dict) -> bool:
    try:
        return all(p.evaluate(env) for p in preds)
    except (KeyError, ZeroDivisionError, TypeError, RecursionError):
        return False


def never_returns(session, qualname: str) -> bool:
    """Every path of the function's analysis raised: it has `return` statements, none reached."""
    if session.interp.generic_returns.get(qualname):
        return False
    fn = session.function(qualname)
    if fn is None:
        return False
    todo, found = list(fn.node.body), False
    while todo and not found:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue  # a nested function's returns are its own
        found = isinstance(n, ast.Return) and n.value is not None
        todo.extend(ast.iter_child_nodes(n))
    return found


def rank_tested(session, qualname: str) -> set:
    """Parameters whose rank the body tests (`x.dim()`, `x.ndim`, `len(x.shape)`, `x.ndimension()`)."""
    fn = session.function(qualname)
    if fn is None:
        return set()
    out = set()
    for n in walk(fn.node):
        target = None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("dim", "ndimension"):
            target = n.func.value
        elif isinstance(n, ast.Attribute) and n.attr == "ndim":
            target = n.value
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and n.args and \
                isinstance(n.args[0], ast.Attribute) and n.args[0].attr == "shape":
            target = n.args[0].value
        if isinstance(target, ast.Name):
            out.add(target.id)
    return out
