"""Collects what one analysis observes: values at spans (per calling context) and diagnostics.

A line can be reached several times (loop iterations, several call sites, the function's own
generic analysis). `finish` joins the observations: the shape of a record is the function's
generic analysis in terms of its own parameters, else the join of its calls translated into its
own names (contexts.py); each call is listed as a context, in the calling entry's names.
Differing shapes join per dimension (equal kept, else unknown).
"""
from __future__ import annotations

import re
from typing import Callable, Optional

from ..shapes.expr import Expr
from ..shapes.shape import Shape, dim_str
from ..shapes.values import IntV, ModuleV, Span, TensorV, UnknownV, Value
from . import codes, construction_records, contexts, rank_joins, segment_fill
from .contexts import join_shapes
from .frames import BuiltContext
from .journal import Journal
from .observations import MAX_OBSERVATIONS, Observations
from .result import Diagnostic, ValueRecord


_DYN = re.compile(r"\?(?:s?\d+'*|join)")


def shadowing(new_name: str) -> bool:
    """A rename that hides a symbol a local of the same name shadows (`executor.shadow`): shapes
    print it unknown; a message or a fact keeps the symbol's text."""
    return new_name.startswith("?")


class Sink:
    """The reporter: records and diagnostics of one analysis, each an entry of its journal."""

    # not effects (journal.py): where the driver stands, the root analysis running and the
    # order of root analyses of an incremental run
    FIXED = ("path",)
    CURSOR = ("owner", "owner_rank")

    def __init__(self, path: str, journal: Optional[Journal] = None):
        self.path = path
        j = self.journal = journal if journal is not None else Journal()
        self._acc: dict = j.table("record")  # key -> Observations, whose observations note "record" too
        self._diags: dict = j.table("diagnostic")
        self.unknown_callees: set = j.tally("unknown-callee")
        # function -> {default symbol name: program name} (`renames_of`)
        self.renames: dict[str, dict] = j.table("rename")
        self.annotated_lines: set[int] = j.tally("annotation")
        self.owner = "<module>"  # the root analysis currently running (for per-function capture)
        self.owned_annotations: dict = j.table("annotation")  # owner -> annotated lines it met
        self._later: list = j.log("restored")  # [(capture, owner)] restored, observations not merged yet
        # root analysis -> its place in a from-scratch run ("<module>", then the functions in
        # order); set by an incremental run, whose owners come in another order (re-analysed
        # first, restored after): finishing puts observations back in from-scratch order
        self.owner_rank: Optional[dict] = None
        self.fixed_restored: dict = j.table("restored")  # function -> its pinned symbols, for restored functions
        # (span, function, name, is_target) -> ((root analysis, the kinds of the call's
        # arguments), ...) of the calls that lost that value (unknown there): what the other calls
        # agree on need not hold for a call that took another path (`_value`)
        self.lost: dict = j.table("record")
        # (span, function, name, is_target) -> the construction contexts (built.py) one of whose
        # runs had no tensor there: their other runs' shapes are not all the line has
        self.lost_built: dict = j.table("record")

    def renames_of(self, function: str) -> dict:
        """`function`'s table of renames, made on first use."""
        table = self.renames.get(function)
        if table is None:
            table = self.renames[function] = self.journal.table("rename")
        return table

    def annotate(self, line: int) -> None:
        self.annotated_lines.add(line)
        owned = self.owned_annotations.get(self.owner)
        if owned is None:
            owned = self.owned_annotations[self.owner] = self.journal.tally("annotation")
        owned.add(line)

    def record(self, span: Span, name: str, function: str, value: Value, context: str,
               is_entry: bool, is_target: bool, sub: str = "", call: tuple = ()) -> None:
        if construction_records.is_construction(context) and not construction_records.kept(value):
            return self._lose_built((span, function, name, is_target), context)
        if isinstance(context, BuiltContext) and not isinstance(value, TensorV):
            self._lose_built((span, function, name, is_target), context)
        kind = "tensor" if isinstance(value, TensorV) else "int" if isinstance(value, IntV) else \
            "layer" if isinstance(value, ModuleV) else None
        key = (span, function, name, is_target, kind)
        if kind is not None:
            acc = self._acc.get(key)
            if acc is None:
                acc = self._acc[key] = Observations(span, name, function, is_target, kind)
            if acc.observed(self.journal, (context, is_entry, value, sub, call), self.owner):
                return
        # a call that lost the value, or whose value was not kept (past the cap): its context
        # lists no shape, since the calls kept under the same label are not all of them. A deep
        # record's loss is its own label's only (lost_built): its call is one its caller's own
        # analysis makes at the same site, where it counts, so it is no other path for the line
        if context and (isinstance(value, UnknownV) if kind is None else not isinstance(context, BuiltContext)) \
                and not getattr(context, "deep", False):
            _lose(self, key[:4], (self.owner, call[2] if call else None, contexts.label(context, sub)))

    def _lose_built(self, key: tuple, context: str) -> None:
        if context not in self.lost_built.get(key, ()):
            self.lost_built[key] = self.lost_built.get(key, ()) + (context,)

    def reverse_name(self, function: str, name: str) -> str:
        """The internal symbol a program name stands for (`B` -> `x.shape[0]`), else the name."""
        for old, new in self.renames.get(function, {}).items():
            if new == name:
                return old
        return name

    def layer_io(self, span: Span, function: str, name: str, text: str) -> None:
        for is_target in (False, True):
            acc = self._acc.get((span, function, name, is_target, "layer"))
            if acc is not None:
                self._set_layer_io(acc, text, self.owner)

    def _set_layer_io(self, acc: Observations, text: str, owner: str) -> None:
        """The last call's text wins, as in a from-scratch run (the latest owner in its order)."""
        rank = self.owner_rank
        if rank is None or acc.layer_io is None or rank.get(owner, 0) >= rank.get(acc.layer_io_owner, 0):
            self.journal.note("record")
            acc.layer_io, acc.layer_io_owner = text, owner

    def diag(self, span: Span, code: str, message: str, related=(), data=None,
             severity: Optional[str] = None, function: str = "", inner=None) -> None:
        key = (span.line, code, message)
        if key in self._diags or any(k[0] == span.line and k[1] == code for k in self._diags):
            return
        self._diags[key] = Diagnostic(span.line, span.col, span.end_line, span.end_col, severity or codes.severity(code),
                                      code, message, [r for r in related if r is not None], data, function=function,
                                      inner=inner, owner=self.owner)

    def diagnostic_keys(self) -> set:
        return set(self._diags)

    def forget_built(self, prefix: str, diagnostics: set) -> None:
        """A construction context's run that failed (failed_contexts.py): the observations of the
        contexts labelled `prefix...` go, and the diagnostics made since `diagnostic_keys()`
        gave `diagnostics`."""
        for acc in self._acc.values():
            if acc.forget_built(prefix):
                self.journal.note("record")
        for key in [k for k in self._diags if k not in diagnostics]:
            del self._diags[key]

    def restore_later(self, captured: dict, owner: str) -> None:
        """`restore_unmoved`, with the observations merged only when the records are built:
        they are most of a capture and nothing before `finish_values` reads them, so an edit's
        diagnostics need not wait for thousands of them to be re-inserted."""
        restore_unmoved(self, captured, owner, observations=False)
        self._later.append((captured, owner))

    def _merge_later(self) -> None:
        later = list(self._later)
        self._later.clear()
        for captured, owner in later:
            _merge_observations(self, captured, owner)

    def _from_scratch_order(self) -> None:
        rank = self.owner_rank
        for acc in self._acc.values():
            if len(set(acc.owners)) > 1:
                pairs = sorted(zip(acc.owners, acc.obs), key=lambda p: rank.get(p[0], 0))
                self.journal.note("record")
                acc.owners, acc.obs = [p[0] for p in pairs], [p[1] for p in pairs]

    def has_error_at(self, line: int) -> bool:
        return any(d.line == line and d.severity == "error" for d in self._diags.values())

    # ---- results ---------------------------------------------------------
    def finish(self, resolve: Callable[[TensorV], Shape], fixed: Optional[dict] = None) -> tuple[list, list]:
        return self.finish_values(resolve, fixed), self.finish_diagnostics()

    def finish_values(self, resolve: Callable[[TensorV], Shape], fixed: Optional[dict] = None) -> list:
        """The records, one per (span, name, kind), in source order."""
        self._merge_later()
        if self.owner_rank is not None:
            self._from_scratch_order()
        values = []
        fixed = {**self.fixed_restored, **(fixed or {})}
        tables: dict = {}

        def names_of(function: str, values: bool = True) -> dict:
            """How `function`'s analysis prints its symbols: the program's names, pinned values
            (a caller's generic analysis pins sizes its own records show: a call's context
            keeps the caller's names only)."""
            ren = tables.get((function, values))
            if ren is None:
                ren = tables[(function, values)] = {k: Expr.sym(v) for k, v in self.renames.get(function, {}).items()}
                # a value the facts force beats a name; its own symbols get their names too
                ren.update({k: v.subs(ren) for k, v in fixed.get(function, {}).items()
                            if values or not v.is_const})
            return ren
        owns: dict = {}  # id(call) -> (the call, its own names): one per call, not per record
        seen: dict = {}  # records see the same few shapes from every call (resnet.py: 4,237 of 527)

        def in_names(call, shape, function: str, owner: str) -> tuple:
            """`shape` in the calling entry's names and in `function`'s own, once per call."""
            hit = seen.get((id(call), shape, function, owner))
            if hit is None or hit[0] is not call:
                own = owns.get(id(call))
                if own is None or own[0] is not call:
                    own = owns[id(call)] = (call, contexts.own_names(call, resolve) if call else ({}, {}, set()),
                                            contexts.star_names(call, resolve) if call else {})
                hit = seen[(id(call), shape, function, owner)] = (
                    call, shape.subs(names_of(owner, False)),
                    contexts.translate(shape, own[1], own[2], function).subs(names_of(function)))
            return hit[1], hit[2]
        fills = segment_fill.CallerFills()
        for acc in self._acc.values():
            if not acc.obs:  # (only contexts saw it, and each was forgotten: forget_built)
                continue
            rec = self._value(acc, resolve, names_of, self.lost.get(acc.span_key(), ()), in_names, fills)
            rec.has_annotation = acc.span.line in self.annotated_lines
            values.append(rec)
        fills.apply()
        values.sort(key=lambda v: (v.span.line, v.span.col, not v.is_target))
        return values

    def finish_diagnostics(self) -> list:
        """The diagnostics, in source order, with the program's names for symbols."""
        own = {(d.line, d.code) for d in self._diags.values() if d.inner is None}
        # a call-site report of a failure the callee reports by itself is redundant
        diags = sorted((d for d in self._diags.values() if d.inner not in own),
                       key=lambda d: (d.line, d.col, d.code))
        for d in diags:
            d.message = _DYN.sub("?", self._rename_text(d.message, self.renames.get(d.function, {})))
            for r in d.related:
                r.message = _DYN.sub("?", r.message)
        return diags

    @staticmethod
    def _rename_text(text: str, table: dict) -> str:
        for old in sorted(table, key=len, reverse=True):
            if not shadowing(table[old]):
                text = text.replace(old, table[old])
        return text

    def _run_names(self, c, function: str) -> dict:
        """A part's run's records (frames.own_run): its own in its program names; a method's it
        called with the entry symbols unknown."""
        if c.runs == function:
            return {k: Expr.sym(n) for k, n in self.renames.get(function, {}).items()}
        return {k: Expr.sym(f"?{k}") for k in c.entry}

    def _value(self, acc: Observations, resolve, names_of, lost: tuple, in_names, fills) -> ValueRecord:
        rec = ValueRecord(acc.span, acc.name, acc.function, None, kind=acc.kind, is_target=acc.is_target,
                          layer_io=acc.layer_io)
        if acc.kind == "layer":
            rec.text = acc.obs[0][2].describe()
            return rec
        ren = names_of(acc.function)
        if acc.kind == "int":
            exprs = [o[2].expr.subs(ren) for o in acc.obs]
            entry = [o[2].expr.subs(ren) for o in acc.obs if o[1]]
            pick = [e for o, e in zip(acc.obs, exprs) if o[0] == ""] or entry or exprs
            rec.text = str(pick[0]) if all(p == pick[0] for p in pick) else " | ".join(dict.fromkeys(map(str, pick)))
            return rec
        # (label, shape in the calling entry's names, shape in the function's own names, dtype)
        generic, calls, chosen = [], [], []  # chosen: the calls the shape joins
        owners = []  # the root analysis of each of `calls`
        built: set = set()  # the construction contexts (`QUALNAME:LINE`) among the calls
        kinds: set = set()  # of the arguments of the calls that observed a value
        for (c, _, v, sub, call), owner in zip(acc.obs, acc.owners):
            shape = resolve(v)
            if c == "":
                own = shape.subs(ren)
                generic.append((sub, own, own, v.dtype))
                continue
            owners.append(owner)
            calls.append((contexts.label(c, sub), *in_names(call, shape, acc.function, owner), v.dtype))
            if getattr(c, "runs", None) is not None:  # (frames.own_run)
                calls[-1] = (calls[-1][0], calls[-1][1].subs(self._run_names(c, acc.function)), *calls[-1][2:])
            if not isinstance(c, BuiltContext):
                chosen.append(calls[-1])
            else:
                built.add(contexts.split(calls[-1][0])[0])
            kinds.add(call[2] if call else None)
        # a function's own analysis (in terms of its parameters) comes first; else what its calls
        # agree on, in its own names; the models factories build are contexts only
        # (frames.BuiltContext: the class may be built in other ways elsewhere)
        # a call that lost the value after other arguments than those that observed it (a `kv`
        # given where the others omitted it) may have taken another path: any shape (the calls
        # that kept a rank the function's own analysis lost are then not all its calls)
        other_path = any(w[1] not in kinds for w in lost)
        primary = chosen if contexts.rank_lost(generic, chosen) and not other_path else generic or chosen
        rec.shape = rank_joins.line_join([o[2] for o in primary]) if generic or not other_path else None
        own = rec.shape  # (filled by its calls: the record's shape is theirs, no generic item listed)
        if generic and primary is generic and not lost and not acc.dropped:
            rec.shape = segment_fill.filled(rec.shape, chosen, acc.function)
        fills.note(rec, own)
        if not generic and acc.dropped and rec.shape is not None:
            rec.shape = contexts.sizes_unknown(rec.shape)  # a call not kept may have had others
        dtypes = {o[3] for o in primary}
        rec.dtype = dtypes.pop() if len(dtypes) == 1 else None
        text = {}  # printing shapes is most of the cost here: once per distinct shape
        shown = str(rec.shape)
        listing = contexts.Listing(built)

        def listed(label: str, s) -> None:
            t = text.get(s)
            if t is None:
                t = text[s] = str(s)
            listing.add(label, s, t)
        # a context some of whose calls in the same analysis lost the value lists no shape: those
        # calls (a Sequential's blocks from one line) are alternatives, the others any of them;
        # calls reached through other sites (`via`: an encoder's and a decoder's stack of one
        # class) are told apart by them, so one's loss is not the other's
        gone = {(w[0], str(w[2]), contexts.via_of(w[2])) for w in lost if len(w) > 2}
        kept = [c for c, o in zip(calls, owners) if (o, str(c[0]), contexts.via_of(c[0])) not in gone]
        # (a construction context's shapes all: one like the record's is still one of its group)
        pending = [(lbl or "in terms of the parameters", s) for lbl, s in contexts.beside_the_join(
            (generic if rec.shape is own else []) + contexts.alike_iterations(kept, text), shown, text, built)]
        partial = acc.dropped_built.union(self.lost_built.get(acc.span_key(), ()))
        for lbl, s in contexts.whole_constructions(pending, built, partial, text, contexts.MAX_BUILT_LISTED):
            listed(lbl, s)
        if generic and len(generic) > 1 and len({text.setdefault(o[1], str(o[1])) for o in generic}) > 1:
            for lbl, s, _, _ in generic:
                listed(lbl or "generic", s)
        rec.contexts.extend(listing.listed())
        fills.later(rec, built)
        return rec


__all__ = ["Sink", "join_shapes", "dim_str", "MAX_OBSERVATIONS"]


# ---- capture and restore, for warm per-function summaries (workspace.py) -------------------

def capture(sink: Sink, owner: str, resolve) -> dict:
    """Everything the root analysis `owner` contributed, with shapes frozen."""
    obs = []
    calls: dict = {}  # id(call) -> (the call, frozen): one frozen call per call, as in the sink
    for key, acc in sink._acc.items():
        for o, who in zip(acc.obs, acc.owners):
            if who == owner:
                c, e, v, sub, call = o
                if isinstance(v, TensorV):
                    v = _frozen(v, resolve)
                if call:
                    hit = calls.get(id(call))
                    if hit is None:
                        hit = calls[id(call)] = (call, (tuple((p, _frozen(t, resolve)) for p, t in call[0]),)
                                                 + call[1:])
                    call = hit[1]
                obs.append((key, acc.kind, (c, e, v, sub, call)))
    diags = [d for d in sink._diags.items() if d[1].owner == owner]
    layer_io = [(key, acc.layer_io) for key, acc in sink._acc.items() if acc.layer_io_owner == owner]
    lost = [(key, who) for key, calls in sink.lost.items() for who in calls if who[0] == owner]
    # (a construction context is the factory's: `FACTORY:LINE`, made by the factory's analysis)
    dropped = [(acc.span_key(), c) for acc in sink._acc.values() for c in acc.dropped_built
               if contexts.split(c)[0].rsplit(":", 1)[0] == owner]
    dropped += [(key, c) for key, labels in sink.lost_built.items() for c in labels
                if contexts.split(c)[0].rsplit(":", 1)[0] == owner]
    return {"obs": obs, "diags": diags, "annotated": set(sink.owned_annotations.get(owner, ())),
            "layer_io": layer_io, "lost": lost, "dropped_built": dropped}


def _frozen(t: TensorV, resolve) -> TensorV:
    return TensorV(resolve(t), t.dtype, t.origin, t.contiguous, t.layout_note)


def restore(sink: Sink, captured: dict, owner: str, line_map) -> bool:
    """Re-insert a captured contribution, moving spans with `line_map` (old line -> new line);
    False, with nothing inserted, when a span or diagnostic sits on an edited line."""
    from dataclasses import replace
    if any(line_map(line) is None for line in captured_lines(captured)):
        return False  # checked first: a half-restored function analysed again would count twice
    for key, kind, (c, e, v, sub, call) in captured["obs"]:
        c = relabel(c, line_map)
        span = key[0]
        nl, nel = line_map(span.line), line_map(span.end_line)
        if nl is None or nel is None:
            return False
        nkey = (Span(nl, span.col, nel, span.end_col),) + key[1:]
        acc = sink._acc.get(nkey)
        if acc is None:
            acc = sink._acc[nkey] = Observations(nkey[0], key[2], key[1], key[3], kind)
        acc.obs.append((c, e, v, sub, call))  # (restored as captured, past the cap of 64 too)
        acc.owners.append(owner)
        sink.journal.note("record")
    for (line, code, msg), d in captured["diags"]:
        nl, nel = line_map(d.line), line_map(d.end_line)
        if nl is None or nel is None:
            return False
        nd = replace(d, line=nl, end_line=nel, related=[replace(r, line=line_map(r.line) or r.line) for r in d.related],
                     owner=owner)
        if (nl, code, msg) not in sink._diags:
            sink._diags[(nl, code, msg)] = nd
    for key, text in captured.get("layer_io", ()):
        span = key[0]
        acc = sink._acc.get((Span(line_map(span.line), span.col, line_map(span.end_line), span.end_col),) + key[1:])
        if acc is not None:
            sink._set_layer_io(acc, text, owner)
    for key, who in captured.get("lost", ()):
        span = key[0]
        _lose(sink, (Span(line_map(span.line), span.col, line_map(span.end_line), span.end_col),) + key[1:],
              (owner,) + tuple(who[1:]))
    for key, c in captured.get("dropped_built", ()):
        span = key[0]
        sink._lose_built((Span(line_map(span.line), span.col, line_map(span.end_line), span.end_col),) + key[1:], c)
    for line in captured.get("annotated", ()):
        nl = line_map(line)
        if nl is not None:
            sink.annotate(nl)
    return True


def _lose(sink: Sink, key: tuple, who: tuple) -> None:
    """`who`: (the root analysis, the kinds of the call's arguments, the call's context label)."""
    if who not in sink.lost.get(key, ()):
        sink.lost[key] = sink.lost.get(key, ()) + (who,)


def captured_lines(captured: dict) -> list:
    """Sorted lines a capture's spans and diagnostics start or end on (cached in the capture)."""
    lines = captured.get("lines")
    if lines is None:
        seen = set()
        for key, _, _ in captured["obs"]:
            seen.add(key[0].line)
            seen.add(key[0].end_line)
        for _, d in captured["diags"]:
            seen.add(d.line)
            seen.add(d.end_line)
        lines = captured["lines"] = sorted(seen)
    return lines


def _merge_observations(sink: Sink, captured: dict, owner: str) -> None:
    acc_of = sink._acc
    for key, kind, o in captured["obs"]:
        acc = acc_of.get(key)
        if acc is None:
            acc = acc_of[key] = Observations(key[0], key[2], key[1], key[3], kind)
        acc.obs.append(o)
        acc.owners.append(owner)
        sink.journal.note("record")
    for key, text in captured.get("layer_io", ()):
        acc = acc_of.get(key)
        if acc is not None:
            sink._set_layer_io(acc, text, owner)
    for key, who in captured.get("lost", ()):
        _lose(sink, key, (owner,) + tuple(who[1:]))


def restore_unmoved(sink: Sink, captured: dict, owner: str, observations: bool = True) -> None:
    """`restore` when no line moved and none of the capture's lines changed: the keys and
    observations are reused as they are (only diagnostics are copied: finishing renames them).
    Without `observations`, only the diagnostics and annotated lines (see `Sink.restore_later`)."""
    from dataclasses import replace
    if observations:
        _merge_observations(sink, captured, owner)
    for k, d in captured["diags"]:
        if k not in sink._diags:
            nd = replace(d, related=[replace(r) for r in d.related], owner=owner)
            sink._diags[k] = nd
    for line in captured.get("annotated", ()):
        sink.annotate(line)


_LINE = re.compile(r"\(line (\d+)\)")


def relabel(context: str, line_map) -> str:
    """Context labels name the calling line (and the lines of the calls that led to it): move
    them with the edit."""
    if "(line " not in context:
        return context
    via = tuple(_moved_site(v, line_map) for v in contexts.via_of(context))
    return contexts.with_via(_LINE.sub(lambda m: f"(line {line_map(int(m.group(1))) or m.group(1)})", context), via)


def _moved_site(site: str, line_map) -> str:
    q, _, n = site.rpartition(":")
    return f"{q}:{line_map(int(n)) or n}" if n.isdigit() else site
