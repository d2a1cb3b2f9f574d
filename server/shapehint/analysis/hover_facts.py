"""The hover table's facts and names, kept apart from the analysis that makes them: each
function's share of the hover information (`logged_dims`, kept with its summary), the table
composed from the shares (`compose_dims`), and the symbols the facts pin down for display
(`fixed_symbols`: a constant the user fixed, or a better name for a default-named dim)."""
from __future__ import annotations

from ..shapes.expr import Expr
from .interp import Interp
from .result import DimInfo
from .sink import shadowing


def logged_dims(it: Interp, run) -> tuple:
    """(the writes to `it.env.dims`, the facts hover shows) of what `run()` analyses: one function's
    share of the hover information, kept with its summary (workspace.SummaryCache)."""
    it.env.dims.log, n = [], len(it.env.stores)
    try:
        run()
    finally:
        ops, it.env.dims.log = it.env.dims.log, None
    return ops, [f.pred for st in it.env.stores[n:] for f in st.facts if _hover_fact(f.pred)]


def _hover_fact(p) -> bool:
    if p.op not in ("==", "!=", "<=", "<"):
        return False  # disjunctions (broadcasting) read badly on hover
    syms = p.symbols()
    if not 1 <= len(syms) <= 2 or any(s.startswith("?") for s in syms):
        return False
    if p.op in ("<=", "<") and (p.args[1] - p.args[0]).is_const is False and \
            p.args[0].is_const and p.args[0].value is not None and p.args[0].value <= (1 if p.op == "<=" else 0):
        return False  # `1 <= T`: every dimension is positive anyway
    return True


def compose_dims(it: Interp, parts: list) -> dict:
    """Symbol -> origin and the simple facts known about it, in the program's names (for hover),
    from the analyses' logged shares in program order: the same table whether a function was
    analysed now or restored."""
    out: dict = {}
    for ops, _ in parts:
        for force, name, info in ops:
            if force or name not in out:
                out[name] = DimInfo(info.name, info.origin, default=info.default)
    ren: dict = {}
    for table in it.sink.renames.values():
        ren.update({k: v for k, v in table.items() if not shadowing(v)})
    for _, preds in parts:
        for p in preds:
            text = _fact_text(p)
            for old in sorted(ren, key=len, reverse=True):
                text = text.replace(old, ren[old])
            text = text.replace("<=", "≤").replace("!=", "≠")
            for s in p.symbols():
                info = out.get(s) or out.get(ren.get(s, ""))
                if info is not None and text not in info.facts and len(info.facts) < 6:
                    info.facts.append(text)
    return out


def _fact_text(p) -> str:
    """A fact as hover lists it: an equality with a constant names the dimension first (`S == 8`)."""
    if p.op == "==" and p.args[0].is_const and not p.args[1].is_const:
        return f"{p.args[1]} == {p.args[0]}"
    return str(p)


def fixed_symbols(it: Interp) -> dict:
    """Per function, symbols the facts pin down, for display: a constant (`x.shape[-1] == 32`
    after a Linear(32, ..)), or, for a default-named dimension (`keys.shape[0]`), an equal
    expression over better names (`B`, `2*H`)."""
    out: dict = {}
    dims = it.env.dims
    for q, store in it.generic_stores.items():
        table: dict = {}
        named = set(it.sink.renames.get(q, {}))
        # a name an annotation gave keeps it, unless the user fixed it (issue 24, semantics 4):
        # the equality an operation needs is a fact hover lists under the name (a name the code
        # gives by unpacking, `B, T, C = x.size()`, still reads as its value: `C//6` says less
        # than `16`)
        kept = {n for n, info in dims.items() if info.origin.startswith("annotation of")}
        for fact in store.facts:
            by_user = _by_user(fact.origin)
            # `assert H == 224 and W == 224` pins both
            for p in (fact.pred.args if fact.pred.op == "and" else (fact.pred,)):
                if p.op == "==":
                    _pin_constant(p, table, () if by_user else kept) or _pin_alias(p, table, named) \
                        or _pin_held(p, table, named)
        for k in list(table):  # substitute through chains (a = b, b = 4)
            for _ in range(3):
                table[k] = table[k].subs({n: v for n, v in table.items() if n != k})
        if table:
            out[q] = table
    return out


# the user's own words fix a dim: an assertion, a check, an annotation, an argument, a condition
# the code tests (`if x.size() != (4, 3): raise ...` holds after it)
_USER_FACTS = ("assert ", "torch._check ", "annotation on line", "argument `", "condition on line")


def _by_user(origin) -> bool:
    """Whether a fact is the user's word (an assertion, an annotation) rather than what an
    operation needs."""
    return origin is not None and isinstance(origin[1], str) and origin[1].startswith(_USER_FACTS)


def _pin_constant(p, table: dict, kept=()) -> bool:
    d = p.args[0] - p.args[1]
    syms = d.symbols()
    if len(syms) != 1:
        return False
    name = next(iter(syms))
    if name in kept:
        return False
    mono = next(iter(Expr.sym(name).terms))
    if set(d.terms) - {(), mono} or name.startswith("?") and not name[1:].isdigit():
        # not linear in the symbol alone (e.g. 2*(H//2) == H), or a placeholder (`?count`); an
        # unnamed size (the join of two arms' `x.shape[1]` and 3) the path pins is that value
        return False
    coeff = d.terms.get(mono, 0)
    if coeff in (1, -1):
        table[name] = Expr.const(-d.const_part() * coeff)
        return True
    return False


def _pin_alias(p, table: dict, named: set) -> bool:
    for a, b in (p.args, p.args[::-1]):
        syms = a.symbols()
        if len(syms) != 1:
            continue
        name = next(iter(syms))
        if a != Expr.sym(name) or ".shape[" not in name or name in table or name in named \
                or name in b.symbols():
            continue
        if any(s.startswith("?") for s in b.symbols()):
            continue
        table[name] = b
        return True
    return False


def _pin_held(p, table: dict, named: set) -> bool:
    """An unnamed size (`?7`, the width out of a `Sequential` of unknown layers) equal to one a
    part of the instance holds (`held_sizes`: `?3` printed `self.head[0].in_channels`) prints
    under that part's name."""
    for a, b in (p.args, p.args[::-1]):
        if len(a.symbols()) != 1 or len(b.symbols()) != 1:
            continue
        name, held = next(iter(a.symbols())), next(iter(b.symbols()))
        if a != Expr.sym(name) or b != Expr.sym(held) or held not in named or name in named or name in table \
                or not (name.startswith("?") and name[1:].isdigit()):
            continue
        table[name] = b
        return True
    return False
