"""Shapes and predicates over dimensions.

A `Shape` is a tuple of dimensions when its rank is known. When it is not, it is a known
prefix, a named variadic segment (`*batch`, or the anonymous rest of an unannotated
parameter) and a known suffix; `Linear` maps `(*, in)` to `(*, out)` without learning the rank.

A dimension is an `Expr`. An unknown dimension (gradual `Dyn`) is a fresh symbol whose name
starts with `?`; it behaves like any other symbol in constraints (two uses of the same
unknown dimension are equal) and prints as `?`.

`Pred` is a small boolean language over Exprs. It simplifies on construction so that ground
and syntactically decided predicates never reach the solver.
Tests: tests/unit/test_shape.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from .expr import Expr, IntLike, to_str

DYN_PREFIX = "?"


def is_dyn(d: Expr) -> bool:
    return any(s.startswith(DYN_PREFIX) for s in d.symbols())


def dim_str(d: Expr) -> str:
    return "?" if is_dyn(d) else to_str(d)


def dim_json(d: Expr) -> int | str:
    if is_dyn(d):
        return "?"
    v = d.value
    return v if v is not None else to_str(d)


def star_name(star: str) -> str:
    """Display name of a variadic segment: `batch`, `x` for the unknown rest of parameter x, or `?`."""
    if star.startswith(DYN_PREFIX):
        return "?"
    return star.split("*")[0].split(":")[-1] or "?"


@dataclass(frozen=True)
class Shape:
    dims: tuple[Expr, ...]
    star: str | None = None  # name of an unknown-length segment; None = rank known
    suffix: tuple[Expr, ...] = ()

    @staticmethod
    def of(dims: Iterable[IntLike]) -> "Shape":
        return Shape(tuple(Expr.lift(d) for d in dims))

    @staticmethod
    def unknown(star: str) -> "Shape":
        return Shape((), star, ())

    @property
    def rank(self) -> int | None:
        return len(self.dims) if self.star is None else None

    @property
    def min_rank(self) -> int:
        return len(self.dims) + len(self.suffix)

    @property
    def known(self) -> bool:
        return self.star is None

    def subs(self, mapping: Mapping[str, IntLike]) -> "Shape":
        return Shape(tuple(d.subs(mapping) for d in self.dims), self.star,
                     tuple(d.subs(mapping) for d in self.suffix))

    def symbols(self) -> set[str]:
        out: set[str] = set()
        for d in self.dims + self.suffix:
            out |= d.symbols()
        return out

    def to_json(self) -> list:
        if self.star is None:
            return [dim_json(d) for d in self.dims]
        return [dim_json(d) for d in self.dims] + [f"*{star_name(self.star)}"] + [dim_json(d) for d in self.suffix]

    def __str__(self) -> str:
        items = [dim_str(d) for d in self.dims]
        if self.star is not None:
            items.append("*" + star_name(self.star))
            items += [dim_str(d) for d in self.suffix]
        return "[" + ", ".join(items) + "]"


# ---- predicates -------------------------------------------------------------

@dataclass(frozen=True)
class Pred:
    op: str  # "true" "false" "==" "!=" "<=" "<" "and" "or" "not"
    args: tuple = field(default=())

    @property
    def is_true(self) -> bool:
        return self.op == "true"

    @property
    def is_false(self) -> bool:
        return self.op == "false"

    def subs(self, mapping: Mapping[str, IntLike]) -> "Pred":
        if self.op in ("true", "false"):
            return self
        if self.op in ("and", "or"):
            return (conj if self.op == "and" else disj)(*(a.subs(mapping) for a in self.args))
        if self.op == "not":
            return neg(self.args[0].subs(mapping))
        a, b = self.args
        return _cmp(self.op, a.subs(mapping), b.subs(mapping))

    def symbols(self) -> frozenset[str]:
        """Cached and shared (as Expr.symbols): callers combine it (`|`), never change it."""
        syms = self.__dict__.get("_syms")
        if syms is None:  # memoised (the solver asks for every fact's symbols on every query)
            out: set[str] = set()
            for a in self.args:
                out |= a.symbols()
            syms = frozenset(out)
            object.__setattr__(self, "_syms", syms)
        return syms

    def __reduce__(self):  # a copy computes its own hash (another process hashes strings differently)
        return (Pred, (self.op, self.args))

    def __hash__(self) -> int:
        # memoised: a solver query's cache key holds every fact of its path (FactStore._check)
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.op, self.args))
            object.__setattr__(self, "_hash", h)
        return h

    def evaluate(self, env: Mapping[str, int]) -> bool:
        p = self.subs(env)
        if p.op not in ("true", "false"):
            raise KeyError(f"unbound symbols in {p}")
        return p.is_true

    def __str__(self) -> str:
        if self.op in ("true", "false"):
            return self.op.capitalize()
        if self.op == "not":
            return f"not ({self.args[0]})"
        if self.op in ("and", "or"):
            return f" {self.op} ".join(f"({a})" for a in self.args)
        return f"{to_str(self.args[0])} {self.op} {to_str(self.args[1])}"


TRUE = Pred("true")
FALSE = Pred("false")


def _cmp(op: str, a: IntLike, b: IntLike) -> Pred:
    a, b = Expr.lift(a), Expr.lift(b)
    diff = (a - b).value
    if diff is not None:
        res = {"==": diff == 0, "!=": diff != 0, "<=": diff <= 0, "<": diff < 0}[op]
        return TRUE if res else FALSE
    return Pred(op, (a, b))


def eq(a: IntLike, b: IntLike) -> Pred:
    return _cmp("==", a, b)


def ne(a: IntLike, b: IntLike) -> Pred:
    return _cmp("!=", a, b)


def le(a: IntLike, b: IntLike) -> Pred:
    return _cmp("<=", a, b)


def lt(a: IntLike, b: IntLike) -> Pred:
    return _cmp("<", a, b)


def ge(a: IntLike, b: IntLike) -> Pred:
    return _cmp("<=", b, a)


def gt(a: IntLike, b: IntLike) -> Pred:
    return _cmp("<", b, a)


def divides(d: IntLike, n: IntLike) -> Pred:
    """d divides n (d assumed positive)."""
    return eq(Expr.lift(n) % Expr.lift(d), 0)


def conj(*ps: Pred) -> Pred:
    items: list[Pred] = []
    for p in ps:
        if p.is_false:
            return FALSE
        if p.is_true:
            continue
        items.extend(p.args if p.op == "and" else (p,))
    if not items:
        return TRUE
    return items[0] if len(items) == 1 else Pred("and", tuple(dict.fromkeys(items)))


def disj(*ps: Pred) -> Pred:
    items: list[Pred] = []
    for p in ps:
        if p.is_true:
            return TRUE
        if p.is_false:
            continue
        items.extend(p.args if p.op == "or" else (p,))
    if not items:
        return FALSE
    return items[0] if len(items) == 1 else Pred("or", tuple(dict.fromkeys(items)))


def neg(p: Pred) -> Pred:
    if p.is_true:
        return FALSE
    if p.is_false:
        return TRUE
    if p.op == "not":
        return p.args[0]
    flip = {"==": "!=", "!=": "=="}
    if p.op in flip:
        return Pred(flip[p.op], p.args)
    if p.op == "<=":
        return Pred("<", (p.args[1], p.args[0]))
    if p.op == "<":
        return Pred("<=", (p.args[1], p.args[0]))
    return Pred("not", (p,))


def shapes_equal(a: Shape, b: Shape) -> Pred:
    if a.rank is None or b.rank is None:
        return TRUE if a == b else Pred("true")
    if a.rank != b.rank:
        return FALSE
    return conj(*(eq(x, y) for x, y in zip(a.dims, b.dims)))


def all_positive(dims: Sequence[Expr]) -> Pred:
    return conj(*(ge(d, 1) for d in dims))
