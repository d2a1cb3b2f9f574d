"""The effects journal (analysis/journal.py): every effect of an analysis step goes through it,
and the call memo judges a call quiet by the journal, not by a hand-kept list of attributes.

- A new kind of effect, added here without touching the memo, is noticed by it: the repeat of a
  call that made the effect runs again, so memo on and off give the same effects. (Run against
  25957ec, where the memo compared a hand-kept list, this test fails: the new state is a plain
  list there, the memo answers the repeat and the second effect is lost.)
- A guard: after analysing real programs, every attribute of the interpreter, the sink and the
  environment is a journaled container, or declared as not an effect (FIXED: unchanged;
  WORKING: put back; CURSOR: where the driver stands).
- With the memo on and off, every case program gives the same diagnostics, failures and
  question answers (branch records differ by design: a repeat makes none, callmemo.py).
"""
from __future__ import annotations

import ast
import glob
import os

import pytest

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.analysis.frames import span_of
from shapehint.analysis.interp import Interp

from .test_call_memo import STACK

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = sorted(glob.glob(os.path.join(ROOT, "tests", "cases", "[a-z]*.py")))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "shared", "examples", "*.py")))


# ---- a new kind of effect ---------------------------------------------------------------------

@pytest.fixture
def returns_seen(monkeypatch):
    """A new piece of interpreter state: the `return` statements each analysis executed. It is
    kept as the analysis keeps any state, in a container of its journal (where no journal exists,
    at 25957ec, the only way was a plain list beside the others)."""
    made: list = []
    init, exec_stmt = Interp.__init__, Interp.exec_stmt

    def patched_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        journal = getattr(self, "journal", None)
        self.returns_seen = journal.log("return-seen") if journal is not None else []
        made.append(self)

    def patched_exec_stmt(self, st, fr):
        if isinstance(st, ast.Return):
            self.returns_seen.append(span_of(st))
        return exec_stmt(self, st, fr)

    monkeypatch.setattr(Interp, "__init__", patched_init)
    monkeypatch.setattr(Interp, "exec_stmt", patched_exec_stmt)
    return made


def test_the_program_exercises_the_memo():
    # without the new effect, the stack's repeated forward is answered from the memo
    assert analyze_session(STACK, "m.py", records=False).interp.memo.hits > 0


def test_the_memo_notices_a_new_kind_of_effect(returns_seen):
    analyze_source(STACK, "m.py", records=True)  # records on: the memo is off, every call runs
    analyze_source(STACK, "m.py", records=False)  # memo on
    memo_off, memo_on = returns_seen
    assert len(memo_off.returns_seen) > 0
    assert len(memo_on.returns_seen) == len(memo_off.returns_seen)
    assert sorted(memo_on.returns_seen) == sorted(memo_off.returns_seen)


# ---- the guard ----------------------------------------------------------------------------------

def _at_rest(value) -> bool:
    """Working state put back: empty, zero or False, or a table of such values."""
    if isinstance(value, dict):
        return all(_at_rest(v) for v in value.values())
    if isinstance(value, tuple):
        return all(_at_rest(v) for v in value)
    return not value


def _fixed_state(part) -> dict:
    return {name: (vars(part)[name], _fingerprint(vars(part)[name])) for name in getattr(type(part), "FIXED", ())}


def _fingerprint(value):
    if isinstance(value, (dict, list, set)):
        return len(value)
    return value if isinstance(value, (bool, int, str, type(None))) else id(value)


@pytest.fixture
def analyses(monkeypatch):
    """Every interpreter made meanwhile, with its FIXED state as it was made."""
    made: list = []
    init = Interp.__init__

    def patched_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append((self, [_fixed_state(part) for part in _parts(self)]))

    monkeypatch.setattr(Interp, "__init__", patched_init)
    return made


def _parts(it) -> list:
    """The parts of an analysis (interpreter and its components)."""
    return [it, it.sink, it.env, it.reporter, it.call_stack, it.shape_comments, *it.parts]


def _violations(it, fixed: list) -> list:
    from shapehint.analysis.journal import unjournaled_state
    out = []
    for part, fixed_state in zip(_parts(it), fixed):
        name = type(part).__name__
        out += [f"{name}.{n}: not journaled" for n in unjournaled_state(part)]
        for attr, (value, fingerprint) in fixed_state.items():
            if vars(part)[attr] is not value or _fingerprint(value) != fingerprint:
                out.append(f"{name}.{attr}: declared FIXED, changed")
        for attr in getattr(type(part), "WORKING", ()):
            if attr in vars(part) and not _at_rest(vars(part)[attr]):
                out.append(f"{name}.{attr}: declared WORKING, not put back")
    return out


GUARDED = [os.path.join(ROOT, "tests", "cases", n) for n in
           ("bert_encoder.py", "gpt_moduledict_optional.py", "resnet50_bottleneck.py", "bug_assert_fails.py",
            "layer_stack_depth_unknown.py", "swin_window_partition.py")] + EXAMPLES


@pytest.mark.parametrize("records", [True, False])
def test_every_state_of_the_analysis_goes_through_its_journal(analyses, records):
    for path in GUARDED:
        r = analyze_source(open(path).read(), path, records=records)
        assert not r.stats.get("internal_errors"), path
    assert len(analyses) >= len(GUARDED)
    for it, fixed in analyses:
        assert _violations(it, fixed) == [], it.path


def test_the_guard_catches_state_that_bypasses_the_journal(analyses, monkeypatch):
    exec_stmt = Interp.exec_stmt

    def patched_exec_stmt(self, st, fr):
        if isinstance(st, ast.Return):
            vars(self).setdefault("returns_seen", []).append(st)  # a plain list: no journal
        return exec_stmt(self, st, fr)

    monkeypatch.setattr(Interp, "exec_stmt", patched_exec_stmt)
    analyze_source(STACK, "m.py", records=False)
    it, fixed = analyses[-1]
    assert _violations(it, fixed) == ["Interp.returns_seen: not journaled"]


def test_the_guard_catches_fixed_state_that_changes(analyses, monkeypatch):
    exec_stmt = Interp.exec_stmt

    def patched_exec_stmt(self, st, fr):
        if isinstance(st, ast.Return):
            self.comments[-1] = "written during the analysis"
        return exec_stmt(self, st, fr)

    monkeypatch.setattr(Interp, "exec_stmt", patched_exec_stmt)
    analyze_source(STACK, "m.py", records=False)
    it, fixed = analyses[-1]
    # (the interpreter and the shape comments share the module's comments)
    assert _violations(it, fixed) == ["Interp.comments: declared FIXED, changed",
                                      "ShapeComments.comments: declared FIXED, changed"]


# ---- memo on and off ------------------------------------------------------------------------------

def _answers(path: str, memo: bool) -> dict:
    from shapehint.analysis.engine import run
    from shapehint.questions.branches import answer_branches
    from shapehint.questions.holes import answer_holes
    from shapehint.questions.migrate import answer_migration
    text = open(path).read()
    r = run(text, path, records=False, memo=memo)
    it = r.interp
    return {
        "diagnostics": [d.to_json() for d in r.result.diagnostics],
        "failures": sorted((f.function, f.span.line, f.span.col, str(f.pred), f.code, f.message, f.context)
                           for f in it.reporter.failures),
        "questions": (repr(answer_migration(r)), repr(answer_branches(r)), repr(answer_holes(r))),
    }


@pytest.mark.parametrize("path", CASES + EXAMPLES, ids=os.path.basename)
def test_memo_on_and_off_give_the_same_results(path):
    assert _answers(path, memo=True) == _answers(path, memo=False)
