"""Input signatures: what a function's body requires of its tensor inputs, and one typical input.

A signature is read off the function's own (generic) analysis: its parameters' shapes, in the
names the user sees, and the facts left on the path to the end of the body — every precondition
of every operation that path runs, helpers and layers included — restricted to the parameters'
symbols. A parameter whose rank the body leaves open gets the ranks of the migration's rank
search (`migrate.search_ranks`: the fewest axes that pass), so a signature and a migration agree.

The typical input is chosen greedily, one symbol at a time in parameter and axis order, each
given the first value of its ladder that the facts still allow together with the values chosen
before it: batch (axis 0 of a tensor of rank >= 2) 2; image sides (axes >= 2 of rank 4 or 5)
224, 32, 28, 64, 16, 128; channels 3 first; other sizes 32, 16, 64, 128, 28, 8. A symbol no ladder
value fits takes the smallest value >= 2 the facts allow (not 1: BatchNorm in training mode
needs more than one value per channel), else the smallest. Only values the solver calls possible
are taken; an `unknown` never vouches for one.

A function with a provable error has no admissible input: its signature gives no example and
says why (`problem`). Nothing here imports torch or z3.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace
from typing import Optional

from ..frontend.walk import walk
from ..frontend.names import dotted
from ..shapes.expr import Expr
from ..shapes.shape import conj, eq, ge
from . import sigsource as src
from .class_trees import attribute_calls, classes_of
from .common import consistent, default_assumptions

BATCH = (2,)
SPATIAL = (224, 32, 28, 64, 16, 128)
CHANNELS = (3, 1, 16, 32, 64)
OTHER = (32, 16, 64, 128, 28, 8)
RANK_NAMES = {1: ("N",), 2: ("B", "D"), 3: ("B", "T", "D"), 4: ("B", "C", "H", "W"), 5: ("B", "C", "D", "H", "W")}
ID_RANK_NAMES = {2: ("B", "T")}
MAX_CONSTRAINTS = 12
MEMBERSHIP_SPAN = 8  # a range of at most this many values is listed when not all of them pass
ANON = re.compile(r"^(\w+)\.shape\[(\d+)\]$")


@dataclass
class ParamSig:
    name: str
    shape: Optional[list]  # int | symbol name per axis; None = nothing known
    constraints: list = field(default_factory=list)
    example: Optional[list] = None
    dtype: Optional[str] = None
    optional: bool = False
    reason: Optional[str] = None  # why the rank or the example is what it is
    # relations of its axes to the constructor's values (`B == config.hidden_size`): not input
    # constraints (a check in `forward` cannot name them), but what the example needs of the model
    requires: list = field(default_factory=list)

    def to_json(self) -> dict:
        out = {"name": self.name, "shape": self.shape, "constraints": self.constraints, "example": self.example,
               "dtype": self.dtype}
        if self.optional:
            out["optional"] = True
        if self.requires:
            out["requires"] = self.requires
        return out


@dataclass
class Signature:
    function: str
    line: Optional[int]
    params: list
    problem: Optional[str] = None  # why no typical input exists
    callers: list = field(default_factory=list)  # functions that call it (and give it inputs)
    rank_open: bool = False  # no rank was followed through the code (an opaque operation on the way)

    def to_json(self) -> dict:
        out = {"function": self.function, "params": [p.to_json() for p in self.params]}
        if self.problem:
            out["problem"] = self.problem
        return out

    def example(self) -> Optional[dict]:
        """{param: (shape, dtype)} of the typical input, or None when there is none."""
        if self.problem or any(p.example is None and not p.optional for p in self.params):
            return None
        return {p.name: (p.example, p.dtype or "float32") for p in self.params if p.example is not None}


def signatures_json(session, budget: Optional[list] = None) -> list:
    """DESIGN §4 `signatures`: one entry per function that takes tensors."""
    from .migrate import SEARCH_STEPS_PER_ANSWER
    from ..analysis.frames import Cancelled
    budget = budget if budget is not None else [SEARCH_STEPS_PER_ANSWER]  # shared: one answer's rank searches
    out = []
    for q in src.functions(session):
        try:
            out.append(signature(session, q, budget).to_json())
        except Cancelled:
            raise
        except (Exception, RecursionError) as exc:  # a bug costs this function's signature, not the answer
            out.append({"function": q, "params": [], "problem": f"internal error: {type(exc).__name__}: {exc}"})
    return out


def signature(session, qualname: str, budget: Optional[list] = None) -> Signature:
    return replace(_signature(session, qualname, budget), callers=src.callers(session, qualname))


def _signature(session, qualname: str, budget: Optional[list] = None) -> Signature:
    from .migrate import SEARCH_STEPS_PER_ANSWER
    if budget is None:
        budget = [SEARCH_STEPS_PER_ANSWER]
    line = src.def_line(session, qualname)
    base, reasons = session, {}
    params = src.params(session, qualname)
    if src.store(session, qualname) is None:
        return Signature(qualname, line, [ParamSig(n, None) for n in params],
                         "its analysis did not finish (see the SH004 note)")
    # an optional tensor (`mask=None`) whose rank only its own branch fixes needs no rank here:
    # the typical input omits it
    if any(t.shape.rank is None and not t.optional for t in params.values()) and not src.failures(session, qualname):
        found = src.with_ranks(session, qualname, budget)
        if found is None:
            open_ = [n for n, t in params.items() if t.shape.rank is None and not t.optional]
            return Signature(qualname, line, [ParamSig(n, None, reason="the rank is not determined by the code")
                                              for n in params],
                             f"no input can be inferred for {', '.join(open_)}: the code does not fix "
                             f"{'its' if len(open_) == 1 else 'their'} rank, and no rank tried was followed "
                             f"through every operation", rank_open=True)
        base, reasons = found
        params = src.params(base, qualname)
    return _read(base, qualname, line, params, reasons)


def _read(session, qualname: str, line, params: dict, reasons: dict) -> Signature:
    store = src.store(session, qualname)
    fails = src.failures(session, qualname)
    ids = _id_params(session, qualname)
    names = _names(session, qualname, params, ids)
    order = list(dict.fromkeys(s for t in params.values() for d in t.shape.dims for s in sorted(d.symbols())))
    problem = None
    if fails:
        problem = f"no input passes line {fails[0][0]}: {fails[0][1]}"
    elif any(t.shape.rank is None and not t.optional for t in params.values()):
        problem = "the rank of " + ", ".join(n for n, t in params.items() if t.shape.rank is None and not t.optional) + \
                  " is not determined by the code"
    # the typical input is one for the model as `Cls()` builds it (common.default_assumptions)
    env = None if problem else _typical(store, params, order,
                                        consistent(store, default_assumptions(session, qualname)))
    if env is None and problem is None:
        problem = "no concrete input satisfies the facts the solver could decide"
    forced = _forced(store, order, env) if env is not None else set()
    ren = {s: Expr.sym(n) for s, n in names.items()}
    out = []
    for pname, t in params.items():
        s = t.shape
        dtype = "int64" if pname in ids else (t.dtype or "float32")
        if s.rank is None:
            out.append(ParamSig(pname, None, dtype=dtype, optional=t.optional, reason=reasons.get(pname)))
            continue
        shape, example = [], []
        for d in s.dims:
            if d.is_const:
                shape.append(d.value)
            elif env is not None and d.symbols() <= forced:
                shape.append(d.subs(env).value)
            else:
                shape.append(str(d.subs(ren)))
            if env is not None:
                example.append(d.subs(env).value)
        syms = set().union(*(d.symbols() for d in s.dims)) if s.dims else set()
        out.append(ParamSig(pname, shape, _constraints(store, syms, set(order), forced, env, ren),
                            example if env is not None and None not in example else None, dtype, t.optional,
                            reasons.get(pname), _requires(session, qualname, store, syms - forced, set(order), ren)))
    return Signature(qualname, line, out, problem)


def _requires(session, qualname: str, store, free: set, inputs: set, ren: dict) -> list:
    """The comparisons tying these free axes to values the model is built with (a constructor's
    parameter, a configuration's attribute), in the names the user sees, each term holding one
    input axis at most (`B*T*heads*(C//heads) == B*T*dim`, a reshape's element count, says more
    of `dim` than of the input). A fresh size (a data-dependent result's) or one with no name a
    reader knows is no such value: its facts are not shown."""
    env = session.interp.env
    fresh = {s for s in env.symbol_lower if env.is_fresh(s)} | set(env.holes)
    kept, names = [], dict(ren)
    for f in store.facts:
        fs = f.pred.symbols()
        built = fs - inputs
        if not fs & free or not built or f.pred.op not in ("==", "<=", "<") or \
                any(b in fresh or b.startswith("?") for b in built) or not _one_axis_a_term(f.pred, inputs):
            continue
        for b in built - set(names):
            names[b] = Expr.sym(str(src.shown(session, qualname, Expr.sym(b))))
        if f.pred not in kept and not any(str(names[b]).startswith("?") for b in built):
            kept.append(f.pred)
    return list(dict.fromkeys(str(p.subs(names)) for p in _irredundant(store, kept)))[:MAX_CONSTRAINTS]


def _one_axis_a_term(pred, inputs: set) -> bool:
    a, b = pred.args
    return _axes_a_term(a - b, inputs) <= 1


def _axes_a_term(e: Expr, inputs: set) -> int:
    """The most input axes one term of `e` multiplies (inside `//`, `%`, max and min too)."""
    def of(atom) -> int:
        if atom.kind == "sym":
            return int(atom.name in inputs)
        return max((_axes_a_term(x, inputs) for x in atom.args if isinstance(x, Expr)), default=0)
    return max((sum(of(atom) for atom in m) for m in e.terms), default=0)


def _names(session, qualname: str, params: dict, ids: set) -> dict:
    """symbol -> the name a signature prints: the user's (annotation, unpacking), else a
    conventional one for its place (B, C, H, W ...), made unique per parameter when taken."""
    out, taken = {}, set()
    for pname, t in params.items():
        for i, d in enumerate(t.shape.dims):
            syms = d.symbols()
            if len(syms) != 1 or next(iter(syms)) in out:
                continue
            raw = next(iter(syms))
            text = str(src.shown(session, qualname, Expr.sym(raw)))
            if ANON.match(text) or text.startswith("?") or not text.isidentifier():
                table = (ID_RANK_NAMES if pname in ids else {}).get(t.shape.rank) or RANK_NAMES.get(t.shape.rank)
                text = table[i] if table and i < len(table) else f"{pname}{i}"
                if text in taken:
                    text = f"{text}_{pname}"
            out[raw] = text
            taken.add(text)
    return out


def _ladder(t, i: int) -> tuple:
    rank = t.shape.rank  # None under a star segment: then only the axes written out are known
    if i == 0 and (rank if rank is not None else len(t.shape.dims)) >= 2:
        return BATCH + OTHER
    if rank in (4, 5) and i >= 2:
        return SPATIAL
    if rank in (4, 5) and i == 1:
        return CHANNELS + OTHER
    return OTHER


def _typical(store, params: dict, order: list, defaults: list = ()) -> Optional[dict]:
    """The typical input: each symbol at the first ladder value the facts (and `defaults`) allow
    with those chosen."""
    ladders = {}
    for t in params.values():
        for i, d in enumerate(t.shape.dims):
            syms = d.symbols()
            if len(syms) == 1 and d == Expr.sym(next(iter(syms))):
                ladders.setdefault(next(iter(syms)), _ladder(t, i))
    chosen: list = list(defaults)
    free = []
    for s in order:
        for v in ladders.get(s, OTHER):
            ok, _ = store.possible(conj(*chosen, eq(Expr.sym(s), v)))
            if ok is True:
                chosen.append(eq(Expr.sym(s), v))
                break
        else:
            free.append(s)
    for extra in ([ge(Expr.sym(s), 2) for s in free], []):
        m = store.model(chosen + extra, names=order, minimize=free)
        if m is not None and all(s in m for s in order):
            return {s: m[s] for s in order}
    return None


def _forced(store, order: list, env: dict) -> set:
    """The symbols whose value the facts pin (channels, features)."""
    pairs = [(Expr.sym(s), env[s]) for s in order]
    return {s for s, yes in zip(order, store.forced(pairs)) if yes}


def _constraints(store, syms: set, inputs: set, forced: set, env: Optional[dict], ren: dict) -> list:
    """The facts over this parameter's free symbols (and other inputs' symbols: relations such as
    `H == W` across inputs), in the --assume grammar, without those the others imply. Facts over
    anything else (constructor symbols, fresh sizes of data-dependent results) are not shown: the
    contract's constraints speak of the inputs only."""
    free = syms - forced
    if not free:
        return []
    pins = {s: env[s] for s in forced} if env else {}
    kept: list = []
    for f in store.facts:
        fs = f.pred.symbols()
        if not fs & free or not fs <= inputs:
            continue
        p = f.pred.subs(pins)
        if not p.is_true and p not in kept:
            kept.append(p)
    kept = _irredundant(store, kept)
    out = list(dict.fromkeys(str(p.subs(ren)) for p in kept))
    from ..solver import bounds
    box = bounds.intervals([f.pred for f in store.facts], store.lower, store.upper)
    for s in sorted(free):
        member = _membership(store, s, box)
        if member:
            out.append(f"{ren[s] if s in ren else s} in ({', '.join(map(str, member))})")
    return out[:MAX_CONSTRAINTS]


def _irredundant(store, preds: list) -> list:
    """`preds` less those the rest (with every size >= 1) imply: `1 <= H//2` beside `H//4 >= 3`."""
    from ..solver.facts import Fact
    from .common import probe_store
    kept = list(preds)
    for p in list(reversed(preds)):
        rest = [q for q in kept if q is not p]
        probe = probe_store(store)
        probe.take_facts([Fact(q, None) for q in rest])
        if probe.entails(p):
            kept = rest
    return kept


def _membership(store, s: str, box) -> Optional[list]:
    """The values of `s` the facts allow, when interval propagation bounds it to a few (no Z3
    optimisation: a bound it cannot see leaves the set unlisted, never wrong)."""
    if box is None or s not in box[1]:
        return None
    lo, hi = box[0].get(s, 1), box[1][s]
    if hi - lo + 1 > MEMBERSHIP_SPAN or hi <= lo:
        return None
    vals = [v for v in range(lo, hi + 1) if store.possible(eq(Expr.sym(s), v))[0] is True]
    return vals if 1 < len(vals) else None


def _id_params(session, qualname: str) -> set:
    """Parameters used as integer ids or class indices: passed (directly or through indexing and
    methods) to an `Embedding` layer, `F.embedding`, `one_hot`, or as a loss's target — also
    through the forward of a submodule whose class the file defines (`self.embeddings(input_ids)`)."""
    fn, cls = src.function_node(session, qualname)
    if fn is None:
        return set()
    classes = classes_of(session.result.text)
    for name, node in src.base_classes(session, qualname).items():
        classes.setdefault(name, node)
    return _ids_in(fn, cls, classes, 3)


def _with_bases(cls, classes: dict) -> list:
    """The class's node and its bases' that `classes` holds (their `__init__` builds the layers
    an inherited attribute holds: `class BertModelFx(bert.BertModel)`), nearest first."""
    out, todo = [], [cls] if cls is not None else []
    while todo:
        c = todo.pop(0)
        if c in out:
            continue
        out.append(c)
        todo += [classes[dotted(b).split(".")[-1]] for b in c.bases if dotted(b).split(".")[-1] in classes]
    return out


def _ids_in(fn, cls, classes: dict, depth: int) -> set:
    layers, subs = set(), {}
    for attr, callee in (a for c in reversed(_with_bases(cls, classes)) for a in attribute_calls(c)):
        layers.discard(attr)  # (a subclass's layer replaces its base's)
        subs.pop(attr, None)
        if callee.endswith("Embedding"):
            layers.add(attr)
        elif callee in classes:
            subs[attr] = classes[callee]
    names = [a.arg for a in fn.args.args + fn.args.kwonlyargs]
    out = set()
    for node in walk(fn):
        if not isinstance(node, ast.Call):
            continue
        callee = dotted(node.func)
        args = []
        if callee.split(".")[-1] in ("embedding", "one_hot") or \
                (callee.startswith("self.") and callee[5:] in layers):
            args = node.args[:1]
        elif callee.split(".")[-1] in ("cross_entropy", "nll_loss"):
            args = node.args[1:2] + [k.value for k in node.keywords if k.arg == "target"]
        elif callee.startswith("self.") and callee[5:] in subs and depth > 0:
            fwd = next((n for n in subs[callee[5:]].body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
            inner = _ids_in(fwd, subs[callee[5:]], classes, depth - 1) if fwd is not None else set()
            params = [a.arg for a in fwd.args.args[1:]] if fwd is not None else []
            args = [a for a, p in zip(node.args, params) if p in inner] + \
                [k.value for k in node.keywords if k.arg in inner]
        for a in args:
            root = _root(a)
            if root in names:
                out.add(root)
    return out


def _root(node) -> Optional[str]:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else \
            node.value if not isinstance(node, ast.Call) else None
    return node.id if isinstance(node, ast.Name) else None
