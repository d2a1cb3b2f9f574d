"""The environment of one analysis: its symbols and fact stores.

It owns the fresh symbols and where each comes from (`dims`, hover's table), the variadic
segments of unknown-rank tensors and what was learned of them (`stars`, `star_owner`: rank
learning), the shape holes, the names standing for values the analysis cannot see, and the fact
stores with the lower bounds of symbols they share. The other parts ask it for symbols and
stores; every change goes through the analysis's journal (journal.py).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ..shapes.expr import Expr, product
from ..shapes.shape import Shape
from ..shapes.values import Span, TensorV
from ..solver.facts import FactStore, Limits, Session
from .frames import span_of
from .journal import Journal, Table
from .objects import OpaqueV
from .result import DimInfo
from .star_table import StarTable


class DimTable(Table):
    """Symbol -> DimInfo, logging while `log` is a list: the writes one function's analysis
    makes, so a function restored from the summary cache brings its hover information back
    (hover_facts.compose_dims replays the logs in program order, as a fresh analysis writes them)."""

    __slots__ = ("log",)

    def __init__(self, journal: Journal):
        super().__init__(journal, "dim")
        self.log: Optional[list] = None

    def setdefault(self, key, value):
        if self.log is not None:
            self.log.append((False, key, value))
        return super().setdefault(key, value)

    def __setitem__(self, key, value):
        if self.log is not None:
            self.log.append((True, key, value))
        super().__setitem__(key, value)


class Environment:
    # not effects (journal.py): set when made; the solver session, made with the first store
    FIXED = ("limits", "on_store")
    CURSOR = ("session", "arm_logs")

    def __init__(self, journal: Journal, limits: Optional[Limits] = None, on_store=None):
        self.journal = j = journal
        self.limits = limits or Limits()
        self.on_store = on_store
        self.stars: StarTable = StarTable(j, "star")
        self.star_owner: dict[str, tuple] = j.table("star-owner")  # star -> (param, start index, count after star)
        # a tensor's own segment (learn_edge) -> (its shape, that shape in the shared segment's
        # terms): once the shared segment's rank is learned, so is the tensor's
        self.views: dict[str, tuple] = j.table("star-view")
        # symbol -> the segment whose axes' product it is (`segment_product`)
        self.products: dict[str, str] = j.table("star-product")
        # a segment of a result that only rearranges the axes of a tensor of unknown rank
        # (`transpose(1, 2)`) -> (that tensor, the result's shape, the rearrangement,
        # shapes/rearranged.py): the result is written exactly once the input's rank is known,
        # and the result's rank, learned first, is the input's
        self.derived: dict[str, tuple] = j.table("star-derived")
        # a segment a join of tensors made (comprehensions.join_values) -> (the joined shapes,
        # the join's shape): a rank learned of the join past it is each joined path's
        self.joins: dict[str, tuple] = j.table("star-join")
        self.dims = DimTable(j)
        self.holes: dict = j.table("hole")  # hole symbol -> span
        self.stores: list[FactStore] = j.log("store")
        # fresh symbol -> its lower bound, shared by every store (new_store): a value made under
        # one store (a layer's `__init__`) reaches others (its `forward`)
        self.symbol_lower: dict = j.table("symbol-bound")
        # those of them that are parameters whose default is below 1 (bound_below), not fresh
        self.low_defaults: set[str] = j.tally("default-bound")
        self.session: Optional[Session] = None
        self.opaque_names: set[str] = j.tally("opaque")  # symbols standing for values the analysis cannot see
        # those of them surely ints (an int default's): any other may be a float (`cfg.mlp_ratio`)
        self.opaque_ints: set[str] = j.tally("opaque-int")
        # one list per open arm of an undecided branch: (tensor, its shape before) for every
        # resolution made in it, so that what one arm learns of a rank can be undone (open_arm)
        self.arm_logs: list = []
        # segments learned on one side while the other side had axes: the two sides may share axes
        self.shared_sides: set[str] = j.tally("shared-sides")

    @property
    def fresh_count(self) -> int:
        """Fresh names made so far (symbols, unknown dimensions, stars)."""
        return self.journal.count("fresh")

    # ---- stores and symbols ---------------------------------------------------------
    def new_store(self) -> FactStore:
        if self.session is None:
            self.session = Session()
        st = FactStore(self.limits, session=self.session, lower=self.symbol_lower)
        if self.on_store is not None:
            self.on_store(st)
        self.stores.append(st)
        return st

    def fresh_symbol(self, hint: str, span: Optional[Span], lo: int = 1) -> Expr:
        n = self.journal.note("fresh")
        name = f"{hint}{n}" if hint.startswith("?") else f"{hint}_{n}"
        self.symbol_lower[name] = lo  # every store's (new_store): names are never reused
        self.dims.setdefault(name, DimInfo(name, f"computed on line {span.line}" if span else "unknown"))
        return Expr.sym(name)

    def bound_below(self, name: str, lo: int) -> None:
        """Symbol `name` (a parameter's, defaults.py) may be as low as `lo`, not only 1."""
        self.symbol_lower[name] = min(lo, self.symbol_lower.get(name, lo))  # (classes share names)
        self.low_defaults.add(name)

    def least(self, name: str) -> int:
        return self.symbol_lower.get(name, 1)

    def is_fresh(self, name: str) -> bool:
        """Whether `name` is a symbol the analysis made (no name a reader knows)."""
        return name.startswith("?") or name in self.symbol_lower and name not in self.low_defaults

    def fresh_dyn(self) -> Expr:
        return Expr.sym(f"?{self.journal.note('fresh')}")

    def fresh_star(self, like: Optional[str] = None) -> str:
        star = f"?s{self.journal.note('fresh')}"
        if like in self.shared_sides:
            self.shared_sides.add(star)
        return star

    def opaque_symbol(self, v: OpaqueV) -> Expr:
        info = self.dims.get(v.path)
        if info is None or info.names_a_local():
            self.dims[v.path] = DimInfo(v.path, f"the value of `{v.path}`")
        self.opaque_names.add(v.path)
        if v.kind == "int":
            self.opaque_ints.add(v.path)
        return Expr.sym(v.path)

    def truncated(self, fn: str, e: Expr) -> Expr:
        """`fn(e)` (`int`, `round`) of an int expression: `e` itself where its every symbol is an
        int; where one may be a float (`int(dim * cfg.ratio)`, `cfg.ratio` 2.5), a fraction the
        expression's int arithmetic does not show may be cut, so the size is named by the call
        itself, a name a reader can evaluate (an unknown int where the expression holds an unnamed
        size: `int(cfg.ratio*?3)` names nothing a reader knows)."""
        if not (e.symbols() & self.opaque_names) - self.opaque_ints:
            return e
        if any(self.is_fresh(s) for s in e.symbols()):
            return self.fresh_symbol(fn, None, lo=0)
        name = f"{fn}({e})"
        if name not in self.dims:
            self.dims[name] = DimInfo(name, f"the value of `{name}`")
        return Expr.sym(name)

    # ---- unknown ranks ------------------------------------------------------
    def sides_shared(self, star: Optional[str]) -> bool:
        """Whether the axes before segment `star` and those after it may be the same axes."""
        return star in self.shared_sides

    def resolve_shape(self, t: TensorV) -> Shape:
        """The shape shown for `t`: where the axes before its segment and those after it may be
        the same axes (`shared_sides`), only the longer side (the suffix on a tie), since a shown
        segment reads as zero or more axes between the two (issue 25 item 6)."""
        s = self.resolve(t)
        if s.dims and s.suffix and s.star in self.shared_sides:
            return Shape(s.dims, s.star, ()) if len(s.dims) > len(s.suffix) else Shape((), s.star, s.suffix)
        return s

    def rank_learning(self) -> int:
        """Grows with every rank or edge learned: what the call memo compares."""
        return len(self.stars) + len(self.views)

    def derived_star(self, source: TensorV, held: Shape, how) -> str:
        """The segment of `held` (`[*x.shape[:i], *new]`), a result of rearranging `source`'s
        axes `how` (shapes/rearranged.py): its axes follow source's once source's rank is known."""
        star = self.fresh_star(source.shape.star)
        self.derived[star] = (replace(source, shape=source.shape), Shape(held.dims, star, held.suffix), how)
        return star

    def joined_star(self, shapes: list, held: Shape) -> None:
        """`held`'s segment is a new one, the join of tensors of `shapes` (ranks that differ)."""
        self.joins[held.star] = (tuple(shapes), held)

    def _learn_joins(self, span: Optional[Span]) -> None:
        """The joined tensors of each join whose segment's rank is now known: every path that gets
        past a join gave it one of them, so each has the rank the join has (`ids = shift(x) if
        ids is None and e is None else ids`, then `b, t = ids.shape`: x is 2-D as well). One whose
        two sides may be the same axes is left open."""
        for star, (shapes, held) in list(self.joins.items()):
            got = self._substituted(Shape((), star, ()))
            if got.star is not None:
                continue
            whole = len(got.dims) + len(held.dims) + len(held.suffix)
            for sh in shapes:
                probe = TensorV(sh)
                src = self.resolve(probe)
                if src.star is not None and not self.sides_shared(src.star) \
                        and len(src.dims) + len(src.suffix) <= whole:
                    self.learn_rank(probe, whole, span)

    def _derive(self, s: Shape) -> Shape:
        """`s`, whose segment is a derived one, written out where its input's rank is known."""
        source, held, how = self.derived[s.star]
        src = self.resolve(source)
        if src.star is not None:
            return s
        out = how.apply(src.dims)
        if out is None or len(out) < len(held.dims) + len(held.suffix):
            return s  # (the operation fails at that rank: no path gets past it)
        self.stars[s.star] = Shape(out[len(held.dims):len(out) - len(held.suffix)])
        return self._substituted(s)

    def _learn_derived(self, s: Shape, rank: int, span: Optional[Span]) -> None:
        """Rank `rank` of a tensor of shape `s`, whose segment is a derived one: its input's."""
        source, held, how = self.derived[s.star]
        whole = rank - len(s.dims) - len(s.suffix) + len(held.dims) + len(held.suffix)
        src = self.resolve(source)
        if src.star is None or whole - how.delta < src.min_rank:
            return
        self.learn_rank(source, whole - how.delta, span)

    def _learn_viewed(self, s: Shape, rank: int, span: Optional[Span]) -> None:
        """Rank `rank` of a tensor of shape `s`, whose segment is a tensor's own one (learn_edge)
        laid out otherwise than that tensor (`x.shape[:-1] + (h, d)` of it): that tensor's, so
        the segment it was split from is learned too, and this one is its axes in between."""
        held, _ = self.views[s.star]
        mid = rank - len(s.dims) - len(s.suffix)
        if mid < 0:
            return
        whole = len(held.dims) + mid + len(held.suffix)
        probe = TensorV(held)
        if self.learn_rank(probe, whole, span) is None or len(probe.shape.dims) != whole or probe.shape.star:
            return
        self.stars[s.star] = Shape(probe.shape.dims[len(held.dims):whole - len(held.suffix)])

    def resolve(self, t: TensorV) -> Shape:
        s = self._substituted(t.shape)
        if s.star in self.derived:
            s = self._derive(s)
        if s.star in self.views:
            base = self._base(s)
            if base.star is None:
                s = base
        if self.products:
            s = self._with_products(s)
        if s is not t.shape:
            if self.arm_logs:
                self.arm_logs[-1].append((t, t.shape))
            t.shape = s
        return s

    def _substituted(self, s: Shape) -> Shape:
        guard = 0
        while s.star is not None and s.star in self.stars and guard < 1000:
            sub = self.stars[s.star]
            if sub.star is None:
                s = Shape(s.dims + sub.dims + s.suffix)
            else:
                s = Shape(s.dims + sub.dims, sub.star, sub.suffix + s.suffix)
            guard += 1
        return s

    def segment_product(self, star: str) -> Expr:
        """The product of segment `star`'s axes, a symbol until the segment's rank is learned,
        then (resolve) the product of the axes learned: `x.view(-1, x.size(-1))` of an unknown-rank
        `x` has `x`'s leading axes flattened, `[B, T]` once `B, T = x.size()` names them."""
        for name, of in self.products.items():
            if of == star:
                return Expr.sym(name)
        n = self.journal.note("fresh")
        name = f"?prod{n}"
        self.symbol_lower[name] = 0  # (an axis may be 0; an empty segment's product is 1)
        self.dims.setdefault(name, DimInfo(name, "the product of the axes of a tensor of unknown rank"))
        self.products[name] = star
        return Expr.sym(name)

    def _with_products(self, s: Shape) -> Shape:
        """`s` with each segment product whose segment's rank is known written as that product."""
        if not any(d.symbols() & self.products.keys() for d in s.dims + s.suffix):
            return s
        known = {}
        for name, star in self.products.items():
            axes = self._substituted(Shape((), star, ()))
            if axes.star is None:
                known[name] = product(axes.dims)
        return s.subs(known) if known else s

    def view_base(self, s: Shape) -> Optional[Shape]:
        """`s`, a tensor's own segment's layout (learn_edge), laid out around the segment it was
        split from: the same axes, the ones learned past that segment unnamed again."""
        if s.star not in self.views:
            return None
        base = self._base(s)
        return base if base is not s and base.star is not None else None

    def _base(self, s: Shape) -> Shape:
        """`s` in the terms of the segments its own segments were split from (views): the same
        axes, the learned ones past the shared segment unnamed again."""
        guard = 0
        while s.star in self.views and guard < 1000:
            held, base = self.views[s.star]
            if (s.dims, s.suffix) != (held.dims, held.suffix):
                break
            s = self._substituted(base)
            guard += 1
        return s

    # ---- what one arm of an undecided branch learns of ranks --------------------------------
    def open_arm(self) -> tuple:
        """Start recording what an arm learns of ranks (see close_arm)."""
        log: list = []
        self.arm_logs.append(log)
        return log, self.stars.watch()

    def close_arm(self, mark: tuple) -> tuple:
        """Undo what the arm learned of ranks — a rank one arm's operations need (a Conv3d's
        five axes) is not the other arm's, nor the path's after the branch — and return it, to
        be kept again (keep_arm) where the path after the branch is that arm's alone."""
        (log, watch), _ = mark, self.arm_logs.pop()
        keys = self.stars.keys_at(watch)  # None: no key added or removed since the arm opened (star_table.py)
        learned = {} if keys is None else {k: self.stars[k] for k in self.stars if k not in keys}
        changes = [(t, old, t.shape) for t, old in log]
        for t, old, _ in reversed(changes):
            t.shape = old
        for k in learned:
            del self.stars[k]
        return learned, changes

    def keep_arm(self, learned: tuple) -> None:
        stars, changes = learned
        for k, v in stars.items():
            self.stars[k] = v
        for t, old, new in changes:
            if self.arm_logs:
                self.arm_logs[-1].append((t, old))
            t.shape = new

    def join_arms(self, arms: list) -> None:
        """After an undecided branch: [(what an arm learned, whether the path goes on past it)].
        What the arms that go on learned holds after it (a rank one arm's operation needs is
        taken for the tensor's, as on a path without a branch) unless two of them learned
        different ranks of one tensor (a Conv3d in one arm, a Conv2d in the other): then
        neither, since either may be the input's."""
        on = [learned for learned, alive in arms if alive]
        seen: dict = {}
        for stars, _ in on:
            for k, v in stars.items():
                if seen.setdefault(k, v) != v:
                    return
        for learned in on:
            self.keep_arm(learned)

    def forget_arm(self, learned: tuple, other: tuple) -> None:
        """Undo what one arm learned of ranks (kept by join_arms) and the other did not."""
        stars, changes = learned
        for k, v in stars.items():
            if k not in other[0] and self.stars.get(k) is v:
                del self.stars[k]
        for t, old, new in reversed(changes):
            if t.shape is new:
                t.shape = old

    def param_star(self, param: str, function: str = "") -> str:
        # qualified by the function: restored summaries of other functions may mention theirs
        star = f"{function}:{param}*"
        n = 1
        while star in self.star_owner:
            n += 1
            star = f"{function}:{param}*{n}"
        self.star_owner[star] = (param, 0, 0)
        return star

    def _star_dim(self, star: str, pos: int, from_end: bool, span: Optional[Span]) -> Expr:
        owner = self.star_owner.get(star)
        if owner is None:
            return self.fresh_dyn()
        param, start, after = owner
        name = f"{param}.shape[{-(after + pos + 1)}]" if from_end else f"{param}.shape[{start + pos}]"
        where = f" (rank learned from line {span.line})" if span else ""
        self.dims.setdefault(name, DimInfo(name, f"parameter `{param}`, axis {name.split('[')[1][:-1]}{where}"))
        return Expr.sym(name)

    def arm_segment(self, star: str) -> str:
        """A segment of its own for a tensor inside one arm of an undecided test of its rank
        (`if x.dim() == 4:`): what the arm learns of the rank (`b, c, h, w = x.shape`) holds in
        that arm only, not for the other arm's inputs; axes keep the parameter's names. Also
        the segment of a tensor that learned axes its shared segment may lack (learn_edge)."""
        alias = f"{star}~{self.journal.note('fresh')}"
        if star in self.shared_sides:  # the copy's sides may be the same axes as the original's
            self.shared_sides.add(alias)
        owner = self.star_owner.get(star)
        if owner is not None:
            self.star_owner[alias] = owner
        return alias

    def learn_rank(self, t: TensorV, rank: int, span: Optional[Span]) -> tuple:
        s = self.resolve(t)
        if s.star is None:
            return s.dims
        s = self._base(s)  # a tensor's own segment: the rank is the shared segment's
        if s.star in self.derived or s.star in self.views:
            (self._learn_derived if s.star in self.derived else self._learn_viewed)(s, rank, span)
            got = self.resolve(t)
            if got.star is None:
                return got.dims
            s = self._base(got)
        k = rank - len(s.dims) - len(s.suffix)
        new = tuple(self._star_dim(s.star, j, False, span) for j in range(k))
        self.stars[s.star] = Shape(new)
        if self.joins:
            self._learn_joins(span)
        return self.resolve(t).dims

    def learn_edge(self, t: TensorV, n: int, span: Optional[Span], front: bool, same=None) -> None:
        """Name the first (last) `n` axes of `t`. The segment itself is rewritten, for every tensor
        holding it, only by the axes it surely has: where `t` has axes on the far side of its
        segment, some of the `n` may be those (`x.sum(-1)` holds x's segment less its last axis:
        after `x[:, :, 2:]`, a 3-D x has a 2-D sum), so the rest are `t`'s own, past a segment of
        its own whose sides may share axes."""
        s = self.resolve(t)
        if s.star is None:
            return
        near, far = (s.dims, s.suffix) if front else (s.suffix, s.dims)
        k = n - len(near)
        if k <= 0:
            return
        owner = self.star_owner.get(s.star)
        shared = s.star in self.shared_sides
        # learned through a value laid out unlike the parameter around a segment whose sides may
        # share axes (`x[:, 0]` of x), the parameter's axis count is not the value's: unnamed
        apart = owner is None or (len(s.dims), len(s.suffix)) == owner[1:]
        dim = self._star_dim if apart or not shared else lambda *_: self.fresh_dyn()
        # axes the segment surely has: all k where nothing is beyond it, else those the far
        # side cannot hold (none where the sides may already share axes)
        sure = k if not far else 0 if shared else max(0, k - len(far))
        # past those, an axis may be one of the far side's, named after the parameter's only
        # where the far side is the parameter's own in place (`x.transpose(1, 2)`'s last axis
        # is x1 for a 3-D x, not `x.shape[-1]`)
        holds = owner is None or _names_hold(s, owner, front, same or (lambda a, b: False))
        new = [(dim if j < sure or holds else lambda *_: self.fresh_dyn())(s.star, j, not front, span)
               for j in range(k)]
        if sure:
            self._split(s.star, new[:sure], front, shared, owner)
            s = self.resolve(t)
        if sure < k:
            own = self.arm_segment(s.star)  # the tensor's own, named as its segment was
            self.shared_sides.add(own)
            rest = tuple(new[sure:])
            held = Shape(s.dims + rest, own, s.suffix) if front else Shape(s.dims, own, tuple(reversed(rest)) + s.suffix)
            self.views[own] = (held, s)
            owner = self.star_owner.get(own)
            if owner:
                m = len(rest)
                self.star_owner[own] = (owner[0], owner[1] + m, owner[2]) if front else (owner[0], owner[1], owner[2] + m)
            if self.arm_logs:
                self.arm_logs[-1].append((t, t.shape))
            t.shape = held
        self.resolve(t)

    def _split(self, star: str, axes: list, front: bool, shared: bool, owner) -> None:
        """Segment `star` is `axes` (nearest its side first) on one side of a new segment."""
        rest = star + "'"
        if shared:
            self.shared_sides.add(rest)
        k = len(axes)
        if front:
            self.stars[star] = Shape(tuple(axes), rest, ())
        else:
            self.stars[star] = Shape((), rest, tuple(reversed(axes)))
        if owner:
            self.star_owner[rest] = (owner[0], owner[1] + k, owner[2]) if front else (owner[0], owner[1], owner[2] + k)

    # ---- shape holes ---------------------------------------------------------------
    def hole_symbol(self, node) -> Expr:
        s = span_of(node)
        name = f"__{s.line}_{s.col}"
        if name not in self.holes:
            self.holes[name] = s
            self.dims[name] = DimInfo(name, f"shape hole on line {s.line}")
        return Expr.sym(name)


def _names_hold(s: Shape, owner: tuple, front: bool, same) -> bool:
    """Whether a tensor's far-side axes are the parameter's own, in place (or equal to them by
    the facts, `same`: a LayerNorm's width is x's last axis), so that an axis read past its
    segment, when the segment holds too few, is the parameter's axis of that name: the first
    (front) or last axes of the parameter's far side, read from the segment outwards."""
    param, start, after = owner

    def held(d: Expr, name: str) -> bool:
        e = Expr.sym(name)
        return d == e or same(d, e)
    if front:  # past the segment: the parameter's trailing axes, `x.shape[-after]` first
        return all(held(d, f"{param}.shape[{i - after}]") for i, d in enumerate(s.suffix[:after]))
    near = s.dims[::-1][:start]  # before it: its leading axes, `x.shape[start - 1]` first
    return all(held(d, f"{param}.shape[{start - 1 - i}]") for i, d in enumerate(near))
