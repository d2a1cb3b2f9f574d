"""Shapes per calling context (DESIGN §3, issue 24 semantics 3): labels and the function's own names.

A body reached from calls is observed once per call, in the names of the analysis that made the
call (the calling entry's: `input_features.shape[0]`, `B`, or concrete sizes). What a record shows
as its `shape` must be in the function's *own* names, so an observation made in a call is also
translated: a dimension equal to an axis of a tensor parameter as the call bound it becomes that
axis (`keys.shape[1]`, or the name the parameter's annotation gave it), and anything still naming
another function's symbols is unknown (`?`). The join of the translations keeps what every
context agrees on; each context is listed with its own shape under `QUALNAME:LINE` (a
construction context's shapes, one per kind of block, whole or as their join:
`whole_constructions`).

Two instances of one class reached from one call line (`self.branch1(x)` in each of nine
Inception blocks) share that label, and their shapes are in the names of the analysed function
that made the calls, maybe several calls up. So a call's label carries `via` (`CallContext`): the
call sites from that function down to this call, outermost first, each `QUALNAME:LINE`; `infer`
lists it beside the label, so a consumer can tell the instances apart by the calls that led to
each and bind the names in the function that made them (the first site's).
"""
from __future__ import annotations

import re
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.shape import DYN_PREFIX, Shape
from . import construction_records

# listed per record; the join summarises the rest. A seq2seq model's attention is reached from
# its encoder's, decoder's and cross-attention's calls, each through several entry classes: at 8,
# the decoder's calls from the model's own entry were cut (its cross-attention keys)
MAX_CONTEXTS = 16

_CALLED = re.compile(r"^called from (?P<q>\S+) \(line (?P<l>\d+)\)")
_LABEL = re.compile(r"^(?P<q>[\w.<>]+):(?P<l>\d+)(?: (?P<rest>.*))?$")
_UNKNOWN = Expr.sym("?join")
# (literal_contexts.label's, param_lengths.label's and .both's, and a deep context's call site: frames.deep_context)
_ASSUMED = re.compile(r"assuming \S+ == (?:'[^']*'|\d+)(?: and \S+ == (?:'[^']*'|\d+))*(?: via [\w.<>]+:(?:\d+|\?))*"
                      r"|via [\w.<>]+:(?:\d+|\?)(?: via [\w.<>]+:(?:\d+|\?))*")  # (construction_records)
_VIA = re.compile(r"via (?P<q>[\w.<>]+):(?P<l>\d+|\?)(?=\s|$)")


class CallContext(str):
    """A calling context's label (`called from Q (line N)`) and `via`, the call sites that led to
    it from the analysed function (`QUALNAME:LINE`, outermost first, this call's last)."""

    def __new__(cls, text: str, via: tuple = ()):
        obj = super().__new__(cls, text)
        obj.via = tuple(via)
        return obj

    def __reduce__(self):  # (warm summaries are copied and pickled: keep the sites)
        return CallContext, (str(self), self.via)


def call_context(caller: str, line: Optional[int], outer: str) -> str:
    """The label of a call from `caller` at `line`, inside a call whose label is `outer`."""
    if line is None:  # (a site no consumer can match: the calls below it are not told apart)
        return CallContext(f"called from {caller} (?)", via_of(outer) + (f"{caller}:?",))
    return CallContext(f"called from {caller} (line {line})", via_of(outer) + (f"{caller}:{line}",))


def of_call(fr, caller: str, line: Optional[int], foreign: str) -> str:
    """The context label of a call from frame `fr` (`foreign`: the callee's module when another's):
    a construction context's own (built.py); for this file's code called back from another
    module's (`apply(self.part, x)`), the call where this file's code entered that module, the
    only site a reader of this file can see; else the call site."""
    if fr.built is not None:
        return fr.built[2]
    if fr.records_back and not foreign:
        return fr.context
    if getattr(fr.context, "construction", False):
        return construction_records.deeper(fr.context, f"{caller}:{line if line is not None else '?'}")
    return call_context(caller, line, fr.context)


def via_of(context: str) -> tuple:
    return getattr(context, "via", ())


def with_via(text: str, via: tuple) -> str:
    return CallContext(text, via) if via else text


def label(context: str, sub: str = "") -> str:
    """`called from Q (line N)` -> `Q:N` (the contract's form), an iteration label after it."""
    via = via_of(context)
    m = _CALLED.match(context)
    if m is not None:
        context = f"{m.group('q')}:{m.group('l')}{context[m.end():]}"
    return with_via(f"{context} {sub}".strip() if sub else context, via)


def split(text: str) -> tuple:
    """A record's context label -> (`QUALNAME:LINE` or the label, the rest: "iteration 2" or "");
    a construction context's assumption (literal_contexts.py) stays with its `QUALNAME:LINE`: it
    is another context."""
    m = _LABEL.match(text)
    if m is None:
        return text, ""
    rest = m.group("rest") or ""
    a = _ASSUMED.match(rest)
    where = f"{m.group('q')}:{m.group('l')}" + (" " + a.group(0) if a else "")
    return where, rest[a.end():].strip() if a else rest


def describe(text: str) -> str:
    """A label in words, for hover: `Q:N iteration 1` -> `called from Q (line N) iteration 1`."""
    m = _LABEL.match(text)
    if m is None:
        return text
    rest = _VIA.sub(r"via \g<q> (line \g<l>)", m.group("rest") or "")  # (a deep context's call site)
    return f"called from {m.group('q')} (line {m.group('l')})" + (f" {rest}" if rest else "")


def is_call(text: str) -> bool:
    return _LABEL.match(text) is not None


def own_names(call: tuple, resolve) -> tuple:
    """(dimension -> own name, symbol -> own name, the own names) of one call: `call` is
    (the call's tensor parameters as bound, the names their annotations bound)."""
    params, bound = call[0], call[1]
    whole: dict = {}
    by_symbol: dict = {}
    names: set = set()
    for name, got in (bound or {}).items():  # an annotation's name wins over an axis
        if isinstance(got, Expr) and not name.startswith("?"):
            _take(got, Expr.sym(name), whole, by_symbol)
            names.add(name)
    for param, t in params:
        shape = resolve(t)
        for i, d in enumerate(shape.dims):
            own = f"{param}.shape[{i}]"
            if d not in whole and not (d.is_const and d.value == 1):  # (a 1 is mostly a kept axis)
                _take(d, Expr.sym(own), whole, by_symbol)
                names.add(own)
    return whole, by_symbol, names


def _take(d: Expr, own: Expr, whole: dict, by_symbol: dict) -> None:
    whole.setdefault(d, own)
    syms = d.symbols()
    if len(syms) == 1 and not d.is_const:
        s = next(iter(syms))
        if d == Expr.sym(s) and not s.startswith("?"):
            by_symbol.setdefault(s, own)


def translate(shape: Optional[Shape], table: tuple, star_owner: dict, qualname: str) -> Optional[Shape]:
    """`shape` (in a caller's names) in the function's own names, `?` where it has none."""
    if shape is None:
        return None
    whole, by_symbol, _ = table

    def dim(d: Expr) -> Expr:
        own = whole.get(d)
        if own is not None:
            return own
        if d.is_const:
            return d
        # every caller's symbol must have an own name: one left as it is may merely be spelt
        # like one (the caller's `x.shape[2]` is not this function's `x.shape[2]`)
        if not all(s in by_symbol or _global(s) for s in d.symbols()):
            return _UNKNOWN
        return d.subs(by_symbol)

    star = shape.star
    if star is not None:
        param = star_owner.get(star)
        star = f"{qualname}:{param}*" if param is not None else "?s"
    return Shape(tuple(dim(d) for d in shape.dims), star, tuple(dim(d) for d in shape.suffix))


def star_names(call: tuple, resolve) -> dict:
    """The caller's variadic segments that are a parameter's whole unknown shape -> that parameter."""
    out = {}
    for param, t in call[0]:
        shape = resolve(t)
        if shape.star is not None and not shape.dims:
            out.setdefault(shape.star, param)
    return out


def _global(name: str) -> bool:
    """A name no function owns: a configuration's or an object's attribute (`config.hidden_size`)."""
    return "." in name and ".shape[" not in name and not name.startswith("?")


# ---- listing the contexts of one record (sink.py) ---------------------------------------------

MAX_PARTS_LISTED = 128  # shapes listed for the construction contexts of one record (built.py)
MAX_BUILT_LISTED = 16  # construction contexts listed per record (built.MAX_CONTEXTS)


class Listing:
    """The contexts listed for one record: at most MAX_CONTEXTS besides construction contexts
    (`built`). The items of one label reached through the same calls (`via`: one loop's passes,
    a Sequential's blocks) are alternatives a reader judges by their join, so a group the cap
    cuts is not listed at all: the part of it that fits would claim its shapes for all."""

    def __init__(self, built: set):
        self.built, self.items, self.seen, self.cut = built, [], set(), set()
        self.calls = 0  # items listed that are no construction context's: those the cap counts

    def add(self, label: str, s, text: str) -> None:
        # instances reached from one line differ by `via`, unless the shape names nothing
        named = s is not None and (s.star is not None or bool(s.symbols()))
        key = (label, via_of(label) if named else (), text)
        if key in self.seen:
            return
        # (a model's construction contexts, listed first, would else leave the calls no room:
        # a literal context's deep labels displaced the generic analysis's call sites)
        built = split(label)[0] in self.built
        if self.calls < MAX_CONTEXTS or built:
            self.seen.add(key)
            self.items.append((label, s))
            self.calls += not built
        else:
            self.cut.add((str(label), via_of(label)))

    def listed(self) -> list:
        return [(lbl, s) for lbl, s in self.items if (str(lbl), via_of(lbl)) not in self.cut]


def whole_constructions(pending: list, built: set, dropped: set, text: dict, room: int) -> list:
    """`pending` (label, shape) to list, a construction context's whole or as one join. Its
    shapes are one per part of the model built alike (built.py: the blocks of each stage): a
    reader that picks the one for its block among some of them would take another block's
    shape for it. Listed whole while they fit (MAX_PARTS_LISTED in all), else their join (`?`
    where they differ); none when some of its observations were not kept, or past the first
    `room` construction contexts."""
    groups: dict = {}
    for lbl, s in pending:
        where = split(lbl)[0]
        if where in built:
            groups.setdefault(where, {}).setdefault(text[s], s)
    out, done, labels, used = [], set(), 0, 0
    for lbl, s in pending:
        where = split(lbl)[0]
        if where not in built:
            out.append((lbl, s))
            continue
        if where in done:
            continue
        done.add(where)
        if where in dropped or labels >= room:
            continue
        labels += 1
        shapes = list(groups[where].values())
        if used + len(shapes) > MAX_PARTS_LISTED:
            shapes = [join_shapes(shapes)] if len(shapes) > 1 else shapes
        used += len(shapes)
        out += [(where, x) for x in shapes]
    return out


def alike_iterations(calls: list, text: dict) -> list:
    """Calls whose every iteration of a loop gave the same shape are one context (`Q:N`), not one
    per iteration."""
    shapes: dict = {}
    for lbl, s, _, _ in calls:
        shapes.setdefault(split(lbl)[0], set()).add(text.setdefault(s, str(s)))
    out = []
    for lbl, s, own, dtype in calls:
        where = split(lbl)[0]
        out.append((with_via(where, via_of(lbl)) if len(shapes[where]) == 1 else lbl, s, own, dtype))
    return out


def beside_the_join(calls: list, shown: str, text: dict, built: set) -> list:
    """(label, shape) of the contexts listed beside the join `shown`: those that print otherwise,
    and construction contexts. One that prints as the join is left out only where every context
    of its call sites does: else the sites' others would read as all of them (a first dense
    block's input, `x` in the caller's names and in the callee's alike, beside the halved
    inputs of the blocks after it)."""
    printed: dict = {}
    for lbl, s, _, _ in calls:
        printed.setdefault((split(lbl)[0], via_of(lbl)), set()).add(text.setdefault(s, str(s)))
    return [(lbl, s) for lbl, s, _, _ in calls if text[s] != shown or split(lbl)[0] in built
            or len(printed[(split(lbl)[0], via_of(lbl))]) > 1]


def rank_lost(generic: list, chosen: list) -> bool:
    """Whether the function's own analysis lost the rank where its calls keep it: every shape of
    its own is a segment of no parameter (`[*?, C]`, an operand the analysis could not follow
    made its rank unknown) and every call's, in the function's names, has a known rank. Then the
    calls' join is its answer, as when its own analysis gives none (a rank lost is no answer of
    the function's own)."""
    return bool(generic) and bool(chosen) and \
        all(o[2] is not None and o[2].rank is None and o[2].star.startswith(DYN_PREFIX) for o in generic) and \
        all(o[2] is not None and o[2].rank is not None for o in chosen)


def sizes_unknown(shape: Shape) -> Shape:
    """`shape` with its sizes (constants but 1) unknown: what calls agree on in own names holds
    for calls not seen too, a size they passed need not."""
    def dim(d: Expr) -> Expr:
        return Expr.sym("?join") if d.is_const and d.value != 1 else d
    return Shape(tuple(map(dim, shape.dims)), shape.star, tuple(map(dim, shape.suffix)))


def join_shapes(shapes: list) -> Optional[Shape]:
    if not shapes:
        return None
    first = shapes[0]
    if all(s == first for s in shapes):
        return first
    if all(s.rank is not None and s.rank == first.rank for s in shapes):
        return Shape(_join_dims([s.dims for s in shapes]))
    if all(s.star == first.star and len(s.dims) == len(first.dims) and len(s.suffix) == len(first.suffix)
           for s in shapes):
        return Shape(_join_dims([s.dims for s in shapes]), first.star, _join_dims([s.suffix for s in shapes]))
    return None


def _join_dims(rows: list) -> tuple:
    out = []
    for i in range(len(rows[0])):
        col = {r[i] for r in rows}
        out.append(col.pop() if len(col) == 1 else Expr.sym("?join"))
    return tuple(out)
