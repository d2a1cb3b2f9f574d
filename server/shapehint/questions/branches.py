"""Q3: shape-dependent branches, decided for every admissible input or not.

For each `if` whose condition depends on shapes, the facts at that point (annotations,
assertions, earlier preconditions, `--assume`) either force the condition (always-true /
always-false) or admit both outcomes (depends), with a witness input for each outcome.

Which executions of the `if` count: a function that other functions call (a helper method, a
submodule's `forward`, a layer's `__init__`) is judged in the calling contexts that reach it from
the *entry* functions — those no other function calls — where its arguments are the caller's
actual shapes and `self` is the instance the enclosing model builds. Each such context is one
execution of the `if`: always true in every context → always-true, always false in every one →
always-false, both outcomes in one context or different outcomes in two → depends. A function
never reached from an entry (recursion, calls the analysis could not follow) falls back to its
own generic analysis, and so does one the assumptions are scoped to (they describe its own
parameters) and an `if` that some calling context leaves unknown. Witnesses are inputs of the function whose analysis the context belongs to
(`witness_function`).

A test over a rank the analysis does not know (`if x.dim() != 4: raise ...` with `x`
unannotated) is judged by the ranks that take each outcome, with a witness of that rank
(`BranchRecord.ranks`); with `--assume` given it stays unknown, since an assumption may fix
the rank.

An analysis runs as if optional arguments (`mask=None`) were omitted; an execution after a
decision that relied on that (`if mask is None`) stands only for such calls: it can show that
both outcomes occur, never that one is the only one.

Assumptions (`--assume`) are translated in each entry's generic frame: unscoped ones everywhere,
scoped ones only in their function.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.shape import conj, neg
from .assume import parse_assumption, to_pred
from .common import consistent, default_assumptions, probe_store, witness

SHAPE_WORDS = {"shape", "size", "dim", "ndim", "numel", "ndimension"}
MODULE = "<module>"


def shape_dependent(test: ast.expr, preds) -> bool:
    if any(p is not None and p.symbols() for p in preds):
        return True
    for n in ast.walk(test):
        if isinstance(n, ast.Attribute) and n.attr in SHAPE_WORDS:
            return True
    return False


def answer_branches(session, assume: list = (), entry: Optional[str] = None) -> list:
    """Every shape-dependent `if` of the module; with `entry`, those that the function `entry`
    reaches (its own and its callees'), judged for the inputs of `entry` alone — the paper's
    question about one model's `forward`, and no other function's analysis is needed."""
    session.ensure_generic(None if entry is None else {entry})
    it = session.interp
    groups: dict = {}
    for rec in it.branches:
        if rec.root:  # auxiliary runs (the generic instance's __init__, imports) are not analyses
            groups.setdefault((rec.node.lineno, rec.node.col_offset), []).append(rec)
    called = {f for f, roots in it.called_from.items() if roots - {MODULE, f}}
    parsed = _parse(assume)
    scoped = {scope for scope, _, _ in parsed if scope is not None}
    ctx = _Answering(session, parsed)
    out = []
    for (line, col), recs in groups.items():
        node, fn = recs[0].node, recs[0].function
        if entry is not None and not any(r.root == entry for r in recs):
            continue
        if isinstance(node.test, ast.Call) and isinstance(node.test.func, ast.Name) and node.test.func.id == "isinstance":
            continue
        if not shape_dependent(node.test, [r.pred for r in recs]) and \
                (entry is None or fn in (entry, MODULE) or not shape_dependent(node.test, [r.pred for r in _own(session, node, fn)])):
            # (whether an `if` depends on shapes is the function's own analysis's to say: the
            # entry's may have run it with concrete ints only)
            continue
        item = {"line": line, "col": col, "function": fn, "status": "unknown",
                "witnesses": {"true": None, "false": None}, "witness_function": None,
                "condition": _condition_text(it.lines, node.test)}
        chosen = _contexts(recs, fn, called, scoped) if entry is None else [r for r in recs if r.root == entry]
        answer = ctx.judge(chosen)
        if not answer and any(r.root != fn for r in chosen):
            # the callers' contexts leave it open (an argument the analysis could not follow, an
            # omitted optional argument): the function's own analysis holds for every input it admits
            answer = ctx.judge(_own(session, node, fn) if entry is not None else [r for r in recs if r.root == fn])
        item.update(answer)
        out.append(item)
    out.sort(key=lambda b: (b["line"], b["col"]))
    return out


def _condition_text(lines: list, test: ast.expr) -> str:
    """The condition as written when it is on one line (as ast prints it otherwise)."""
    if test.lineno == test.end_lineno and test.lineno <= len(lines):
        return lines[test.lineno - 1][test.col_offset:test.end_col_offset]
    return ast.unparse(test)


def _own(session, node: ast.If, fn: str) -> list:
    """The executions of `node` in `fn`'s own analysis (run now if it has not run)."""
    session.ensure_generic({fn})
    return [r for r in session.interp.branches if r.node is node and r.root == fn]


def _contexts(recs: list, fn: str, called: set, scoped: set) -> list:
    """The executions of one `if` that decide it (see the module docstring)."""
    if fn == MODULE:
        return [r for r in recs if r.root == MODULE]
    if fn in called and fn not in scoped:
        via_entries = [r for r in recs if r.root != MODULE and r.root not in called]
        if via_entries:
            return via_entries
    return [r for r in recs if r.root == fn]


def _parse(assume) -> list:
    out = []
    for text in assume:
        scope, node = parse_assumption(text)
        out.append((scope, node, text))
    return out


class _Answering:
    """Per-root state of one `answer_branches` call: translated assumptions and solver probes."""

    def __init__(self, session, parsed: list):
        self.session = session
        self.parsed = parsed
        self.extra: dict = {}
        self.probes: dict = {}
        self.by_root: dict = {}  # root -> its default assumptions
        self.by_rec: dict = {}  # id(record) -> those its facts speak of and admit

    def assumptions(self, root: str) -> list:
        got = self.extra.get(root)
        if got is None:
            got = self.extra[root] = []
            fr = self.session.generic_frame(root) if self.parsed else None
            for scope, node, text in self.parsed if fr is not None else ():
                if scope is not None and scope != root:
                    continue
                try:
                    got.append(to_pred(self.session.interp, fr, node, text))
                except ValueError:
                    continue
        return got

    def defaults(self, rec) -> list:
        """The constructor defaults this execution's facts speak of (common.default_assumptions):
        the model `Cls()` builds, unless they contradict its facts and the assumptions."""
        got = self.by_rec.get(id(rec))
        if got is None:
            if rec.root not in self.by_root:
                self.by_root[rec.root] = default_assumptions(self.session, rec.root)
            got = self.by_rec[id(rec)] = consistent(
                rec.store, self.by_root[rec.root], self.assumptions(rec.root), facts=rec.facts,
                about=[] if rec.pred is None else [rec.pred]) if self.by_root[rec.root] else []
        return got

    def possible(self, rec, pred) -> Optional[bool]:
        probe = self.probes.get(id(rec.store))
        if probe is None:
            probe = self.probes[id(rec.store)] = probe_store(rec.store)
        probe.take_facts(rec.facts)
        return probe.possible(pred)[0]

    def outcomes(self, rec) -> Optional[set]:
        """The outcomes some admissible input of this execution takes; None when unknown."""
        if rec.pred is None:
            # a test over an unknown rank: each outcome some rank takes (an assumption may speak
            # of the rank, which the outcomes do not follow: then unknown)
            return set(rec.ranks["outcomes"]) if rec.ranks is not None and not self.parsed else None
        extra = self.assumptions(rec.root) + self.defaults(rec)
        if not extra and rec.decided is not None:
            return {rec.decided}
        got = set()
        for outcome, p in ((True, rec.pred), (False, neg(rec.pred))):
            if rec.decided is not None and rec.decided is not outcome:
                continue  # the path's facts already exclude it; assumptions only add facts
            ok = self.possible(rec, conj(p, *extra))
            if ok is None:
                return None
            if ok:
                got.add(outcome)
        return got

    def judge(self, recs: list) -> dict:
        seen: set = set()
        unknown = False
        first: dict = {}  # outcome -> the first execution that takes it (for its witness)
        for rec in recs:
            o = self.outcomes(rec)
            if o is None:
                unknown = True
                continue
            for outcome in o:
                first.setdefault(outcome, rec)
            seen |= o
            if len(seen) == 2:
                break  # depends, whatever the other executions do
        if len(seen) == 2:
            status = "depends"  # every execution is a real one, partial ones included
        elif unknown or not seen or any(r.assumes_default for r in recs):
            # an execution after a decision that took an optional argument to be omitted speaks
            # only for the calls that omit it; the other calls were not analysed
            return {}
        else:
            status = "always-true" if True in seen else "always-false"
        wit, where = {"true": None, "false": None}, None
        for outcome, rec in first.items():
            if rec.pred is None:  # rank outcomes: the facts hold for every length of the segment
                wit["true" if outcome else "false"] = witness(
                    self.session, rec.root, rec.store, rec.facts, self.defaults(rec),
                    segments=(rec.ranks["params"], rec.ranks["outcomes"][outcome]))
            else:
                p = rec.pred if outcome else neg(rec.pred)
                wit["true" if outcome else "false"] = witness(self.session, rec.root, rec.store, rec.facts,
                                                              [p] + self.assumptions(rec.root) + self.defaults(rec))
            where = where or rec.root
        return {"status": status, "witnesses": wit, "witness_function": where}
