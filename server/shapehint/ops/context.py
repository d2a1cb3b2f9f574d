"""The interface a rule sees: `OpContext`.

Rules never touch the solver or the interpreter directly. They ask the context to
`require` a predicate (an error is raised only when no admissible input satisfies it),
whether the facts `entail` a predicate, for the dimensions of a tensor at a given rank
(`dims`, which lets the analyzer learn the rank of an unannotated parameter from its use),
for fresh symbols (data-dependent sizes), and to `call` a value (Sequential runs its
children). Two implementations: `analysis.opctx.AnalysisContext` (symbolic, with Z3) and
`ops.concrete.ConcreteContext` (plain ints; used by the differential tests).
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional, Sequence, Union

from ..shapes.expr import Expr, IntLike
from ..shapes.shape import Pred, Shape, eq
from ..shapes.values import (BoolV, FloatV, IntV, ListV, NoneV, Span, StrV, TensorV, TupleV,
                             UnknownV, Value)


# A message, or what makes it: most preconditions hold, and printing the shapes a message names
# cost more than checking them (`cx.require(eq(a, b), lambda: f"... {x.shape} ...")`)
Message = Union[str, Callable[[], str]]


class OpFailed(Exception):
    """A precondition that no admissible input satisfies. Carries the user-facing message."""

    def __init__(self, code: str, message: Message, related: Sequence = ()):
        message = message() if callable(message) else message
        super().__init__(message)
        self.code = code
        self.message = message
        self.related = list(related)


class NotApplicable(Exception):
    """The rule cannot say anything for these arguments: the result is unknown (no error)."""


class OpContext:
    opname: str = "operation"
    span: Optional[Span] = None

    # ---- to implement ---------------------------------------------------
    def require(self, pred: Pred, message: Message, code: str = "SH101", related: Sequence = ()) -> None:
        raise NotImplementedError

    def entails(self, pred: Pred) -> bool:
        raise NotImplementedError

    def fresh(self, hint: str) -> Expr:
        raise NotImplementedError

    def pinned(self, e: Expr) -> Optional[int]:
        """The one value the facts allow for `e`, if there is one (a symbolic split size that an
        earlier Linear fixed); contexts without facts know only constants."""
        return e.value

    def warn(self, code: str, message: str) -> None:
        raise NotImplementedError

    def call(self, fn: Value, args: list, kwargs: Optional[dict] = None) -> Value:
        raise NotApplicable("calls are not supported here")

    def learn_rank(self, t: TensorV, rank: int) -> tuple:
        """Fix the rank of an unknown-rank tensor (rank learning); returns its dims."""
        raise NotApplicable("rank unknown")

    def sides_shared(self, star: str) -> bool:
        """Whether the axes before segment `star` and those after it may be the same axes (learned
        one side after the other); a shape given whole (`B *x C` declared) keeps them apart."""
        return False

    def segment_product(self, star: str) -> Optional[Expr]:
        """The product of segment `star`'s axes as a size (resolved to the axes' product once the
        rank is learned), or None where contexts learn no ranks."""
        return None

    def fresh_star(self, like: Optional[str]) -> str:
        """A variadic segment of its own (one no rank learned later resolves), whose sides may
        share axes where `like`'s may."""
        raise NotApplicable("rank unknown")

    def dropped_star(self, like: Optional[str], dropped: tuple) -> str:
        """The segment standing for the axes `dropped` (a segment with the known axes around it
        that an edit set apart: ops/common.apart), the same one each time those same axes are
        dropped, so two slices of one tensor keep the same unknown axes."""
        return self.fresh_star(like)

    def derived_star(self, source: TensorV, held: Shape, how) -> str:
        """The segment of `held`, a result that rearranges `source`'s axes `how`
        (shapes/rearranged.py): written as source's are once source's rank is known."""
        return self.fresh_star(source.shape.star)

    def view_base(self, s: Shape) -> Optional[Shape]:
        """`s` laid out around the segment its own was split from when an axis past a shared
        one was read (analysis/environment.py `views`), or None."""
        return None

    def learn_prefix(self, t: TensorV, n: int) -> None:
        """Make the first `n` dims of an unknown-rank tensor explicit (rank stays open)."""
        raise NotApplicable("rank unknown")

    def learn_suffix(self, t: TensorV, n: int) -> None:
        """Make the last `n` dims of an unknown-rank tensor explicit (rank stays open)."""
        raise NotApplicable("rank unknown")

    def label(self, v: Value, default: str = "the input") -> str:
        return default

    # ---- helpers shared by every context ----------------------------------
    def fail(self, message: Message, code: str = "SH101", related: Sequence = ()) -> None:
        raise OpFailed(code, message, related)

    def dims(self, t: Value, rank: int | Iterable[int] | None = None, what: str = "input") -> tuple:
        """The dimensions of tensor `t`, whose rank must be one of `rank` (first = preferred)."""
        if not isinstance(t, TensorV):
            raise NotApplicable(f"{what} is not a known tensor")
        ranks = (rank,) if isinstance(rank, int) else (tuple(rank) if rank is not None else None)
        r = t.shape.rank
        if r is None:
            if ranks is None:
                raise NotApplicable("rank unknown")
            # the axes named before the variadic segment and those after it may be the same
            # axes (`x.shape[2]` read, then `x` meets a Linear(16, ...): x may be [B, T, 16]):
            # only either side alone is sure to exist (issue 25)
            surely = max(len(t.shape.dims), len(t.shape.suffix))
            if surely > max(ranks):
                self.fail(f"{self.opname} expects a {_ranks(ranks)} {what}, but {self.label(t)} has at least "
                          f"{surely} dimensions", "SH102")
            good = [k for k in ranks if k >= t.shape.min_rank]
            if not good:
                raise NotApplicable("the named axes may overlap: the rank is not known")
            return self.learn_rank(t, good[0])
        if ranks is not None and r not in ranks:
            self.fail(f"{self.opname} expects a {_ranks(ranks)} {what}, but {self.label(t)} is {r}D "
                      f"{t.shape}", "SH102")
        return t.shape.dims

    def leading(self, t: Value, ranks: tuple, n: int, what: str = "input") -> tuple:
        """The dimensions of `t`, whose rank must be one of `ranks`, of which the rule needs only
        the first `n` (a norm layer's batch and channels): where the rank is unknown and several
        of `ranks` fit, only those `n` axes are learned and the rank stays open — a rank picked
        among several would be taken as a fact by later operations (BatchNorm1d picking (N, C)
        makes a later `permute(0, 2, 1)` of its (N, C, L) input an error)."""
        if isinstance(t, TensorV) and t.shape.rank is None:
            fits = [k for k in ranks if k >= t.shape.min_rank]
            if len(fits) > 1 and max(len(t.shape.dims), len(t.shape.suffix)) <= max(ranks):
                if len(t.shape.dims) < n:
                    self.learn_prefix(t, n)
                return tuple(t.shape.dims)
        return self.dims(t, ranks, what)

    def at_least(self, t: Value, n: int, what: str = "input") -> None:
        if isinstance(t, TensorV) and t.shape.rank is not None and t.shape.rank < n:
            self.fail(f"{self.opname} expects {what} with at least {n} dimensions, but {self.label(t)} "
                      f"is {t.shape.rank}D {t.shape}", "SH102")

    def dim(self, t: TensorV, i: int) -> Expr:
        """Dimension `i` (negative counts from the end) of `t`, even when its rank is unknown."""
        s = t.shape
        if s.rank is not None:
            if not -s.rank <= i < s.rank:
                self.fail(f"{self.opname}: dimension {i} is out of range for {self.label(t)} of rank {s.rank}", "SH105")
            return s.dims[i]
        if i >= 0:
            if i >= len(s.dims):
                self.learn_prefix(t, i + 1)
            return t.shape.dims[i]
        if -i > len(s.suffix):
            self.learn_suffix(t, -i)
        return t.shape.suffix[i]

    def last_dim(self, t: TensorV) -> Expr:
        s = t.shape
        if s.rank is not None:
            if s.rank == 0:
                self.fail(f"{self.opname} needs at least one dimension, but {self.label(t)} is a scalar", "SH102")
            return s.dims[-1]
        return self.dim(t, -1)

    def norm_dim(self, d: Value | int, rank: int, what: str = "dim") -> int:
        """A concrete dimension index, normalised against `rank` (PyTorch's wrap rule)."""
        i = self.const_int(d)
        if i is None:
            raise NotApplicable("symbolic dim index")
        lo, hi = (-1, 0) if rank == 0 else (-rank, rank - 1)
        if not lo <= i <= hi:
            self.fail(f"{self.opname}: {what}={i} is out of range for a tensor of rank {rank} "
                      f"(expected {lo}..{hi})", "SH105")
        return i % rank if rank else 0

    def int_of(self, v: Value | int | None) -> Optional[Expr]:
        if isinstance(v, bool):
            return Expr.const(int(v))
        if isinstance(v, int):
            return Expr.const(v)
        if isinstance(v, IntV):
            return v.expr
        if isinstance(v, BoolV) and v.pred is not None and (v.pred.is_true or v.pred.is_false):
            return Expr.const(int(v.pred.is_true))
        return None

    def surely_int(self, v) -> bool:
        """`v` is an int, known or not (never a list, a tensor or a value of unknown kind)."""
        return isinstance(v, (int, IntV)) and not isinstance(v, bool)

    def const_int(self, v: Value | int | None) -> Optional[int]:
        e = self.int_of(v)
        return None if e is None else e.value

    def ints_of(self, v: Value | int | None, n: Optional[int] = None) -> Optional[list]:
        """An int or a tuple/list of ints (`kernel_size=3` or `(3, 3)`), replicated to `n`."""
        one = self.int_of(v)
        if one is not None:
            return [one] * (n or 1)
        if isinstance(v, (tuple, list)):  # a Python default such as dim=(-2, -1)
            out = [self.int_of(i) for i in v]
            return None if any(o is None for o in out) else (out * n if n is not None and len(out) == 1 else out)
        if isinstance(v, (TupleV, ListV)) and getattr(v, "items", None) is not None:
            out = [self.int_of(i) for i in v.items]
            if any(o is None for o in out):
                return None
            if n is not None and len(out) == 1:
                out = out * n
            return out
        return None

    def bool_of(self, v: Value | bool | None) -> Optional[bool]:
        if isinstance(v, bool):
            return v
        if v is None or isinstance(v, NoneV):
            return False
        if isinstance(v, BoolV) and v.pred is not None:
            if v.pred.is_true:
                return True
            if v.pred.is_false:
                return False
            return None
        if isinstance(v, IntV) and v.expr.value is not None:
            return bool(v.expr.value)
        return None

    def str_of(self, v: Value | str | None) -> Optional[str]:
        if isinstance(v, str):
            return v
        if isinstance(v, StrV):
            return v.value
        return None

    def is_none(self, v) -> bool:
        return v is None or isinstance(v, NoneV)

    def float_of(self, v) -> Optional[float]:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
        if isinstance(v, FloatV):
            return v.value
        e = self.int_of(v)
        return float(e.value) if e is not None and e.value is not None else None

    def tensor(self, dims: Iterable[IntLike] | Shape, like: Optional[TensorV] = None,
               dtype: Optional[str] = None) -> TensorV:
        shape = dims if isinstance(dims, Shape) else Shape.of(dims)
        return TensorV(shape, dtype if dtype is not None else (like.dtype if like is not None else None),
                       origin=self.span)

    def require_eq(self, a: IntLike, b: IntLike, message: Message, code: str = "SH101", related: Sequence = ()) -> None:
        self.require(eq(a, b), message, code, related)

    def unknown(self, reason: str = "") -> Value:
        return UnknownV(reason)


def _ranks(ranks: tuple) -> str:
    items = [f"{r}D" for r in ranks]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]
