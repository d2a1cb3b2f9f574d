"""Warm per-function summaries: what an edit re-analyses, and incremental == from scratch."""
import random

from hypothesis import HealthCheck, given, settings, strategies as st

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.analysis.workspace import Workspace

PROGRAM = '''\
import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass

HIDDEN = 64


@dataclass
class Config:
    d_in: int = 32
    n_out: int = 10


def double(x):
    y = x * 2
    return y


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        h = F.relu(self.fc(x))
        return h + x


class Head(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.proj = nn.Linear(cfg.d_in, HIDDEN)
        self.block = Block(HIDDEN)
        self.out = nn.Linear(128, cfg.n_out)

    def forward(self, x):
        h = self.proj(x)
        h = self.block(h)
        h = double(h)
        return self.out(h)


def unrelated(z):
    w = z + 1
    return w
'''


def _update(ws, text, v):
    return ws.update("m.py", text, v)


def _same(a, b):
    return a.infer_json() == b.infer_json()


def test_first_analysis_covers_every_function():
    ws = Workspace()
    r = _update(ws, PROGRAM, 1)
    assert set(r.stats["reanalysed"]) == {"double", "Block.__init__", "Block.forward", "Head.__init__",
                                          "Head.forward", "unrelated"}


def test_no_change_reanalyses_nothing():
    ws = Workspace()
    _update(ws, PROGRAM, 1)
    assert _update(ws, PROGRAM, 2).stats["reanalysed"] == []


def test_editing_init_reanalyses_forward():
    ws = Workspace()
    _update(ws, PROGRAM, 1)
    edited = PROGRAM.replace("nn.Linear(128, cfg.n_out)", "nn.Linear(HIDDEN, cfg.n_out)")
    r = _update(ws, edited, 2)
    assert set(r.stats["reanalysed"]) == {"Head.__init__", "Head.forward"}
    assert _same(r, analyze_source(edited, "m.py"))
    assert not [d for d in r.diagnostics if d.severity == "error"]


def test_body_edit_keeping_the_signature_does_not_touch_callers():
    ws = Workspace()
    _update(ws, PROGRAM, 1)
    edited = PROGRAM.replace("w = z + 1", "w = z - 1")
    assert _update(ws, edited, 2).stats["reanalysed"] == ["unrelated"]


def test_signature_change_propagates_to_callers():
    ws = Workspace()
    _update(ws, PROGRAM, 1)
    edited = PROGRAM.replace("y = x * 2\n    return y", "y = x * 2\n    return y.sum(-1)")
    r = _update(ws, edited, 2)
    assert {"double", "Head.forward"} <= set(r.stats["reanalysed"])
    assert "Block.forward" not in r.stats["reanalysed"]
    assert _same(r, analyze_source(edited, "m.py"))


def test_lines_inserted_above_move_restored_results():
    ws = Workspace()
    _update(ws, PROGRAM, 1)
    edited = "# a new comment\n\n" + PROGRAM
    r = _update(ws, edited, 2)
    assert r.stats["reanalysed"] == []
    assert _same(r, analyze_source(edited, "m.py"))


EDITS = [
    ("nn.Linear(128, cfg.n_out)", "nn.Linear(HIDDEN, cfg.n_out)"),
    ("nn.Linear(HIDDEN, cfg.n_out)", "nn.Linear(128, cfg.n_out)"),
    ("HIDDEN = 64", "HIDDEN = 128"),
    ("HIDDEN = 128", "HIDDEN = 64"),
    ("d_in: int = 32", "d_in: int = 16"),
    ("n_out: int = 10", "n_out: int = 7"),
    ("self.fc = nn.Linear(d, d)", "self.fc = nn.Linear(d, 2 * d)"),
    ("self.fc = nn.Linear(d, 2 * d)", "self.fc = nn.Linear(d, d)"),
    ("return h + x", "return h"),
    ("y = x * 2", "y = x.relu()"),
    ("w = z + 1", "w = z * z"),
    ("import torch\n", "import torch\n\n"),
    ("def unrelated(z):", "def unrelated(z, k=1):"),
    ("        h = self.proj(x)\n", "        h = self.proj(x)\n        h = h + 1\n"),
]


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.integers(0, len(EDITS) - 1), min_size=1, max_size=8))
def test_incremental_equals_from_scratch(steps):
    ws = Workspace()
    text = PROGRAM
    _update(ws, text, 0)
    for v, k in enumerate(steps, 1):
        old, new = EDITS[k]
        if old in text:
            text = text.replace(old, new, 1)
        r = _update(ws, text, v)
        fresh = analyze_source(text, "m.py")
        assert _same(r, fresh), (steps, v)
        # everything hover shows of a record too: layers' text and in → out, pinned symbols
        assert _records(r) == _records(fresh), (steps, v)
        assert r.diagnostics == fresh.diagnostics, (steps, v)
        # and what hover says of each symbol: its origin and the facts known about it
        assert _dims(r) == _dims(fresh), (steps, v)


def test_questions_on_a_warm_result_match_a_fresh_one():
    from shapehint.questions.branches import answer_branches
    from shapehint.questions.migrate import answer_migration
    ws = Workspace()
    _update(ws, PROGRAM, 1)
    assert _update(ws, PROGRAM, 2).stats["reanalysed"] == []
    warm = ws.session("m.py")
    fresh = analyze_session(PROGRAM, "m.py")
    assert answer_migration(warm) == answer_migration(fresh)
    assert answer_branches(warm) == answer_branches(fresh)


# ---- the language server's path: records after diagnostics, compacted results --------------

def _dims(r):
    return {k: (d.origin, sorted(d.facts)) for k, d in r.dims.items()}


def _records(r):
    return [(v.span, v.name, v.function, v.kind, str(v.shape), v.text, v.layer_io,
             [(c, str(s)) for c, s in v.contexts]) for v in r.values]


def test_records_are_built_on_first_read_and_equal_eager_ones():
    from shapehint.analysis.engine import analyze
    ws = Workspace()
    r = _update(ws, PROGRAM, 1)
    assert not r.values_ready()  # diagnostics exist before any record is built
    assert r.diagnostics == analyze(PROGRAM, "m.py").diagnostics
    assert _records(r) == _records(analyze(PROGRAM, "m.py"))
    assert r.values_ready()


def test_line_index_answers_like_a_scan_of_every_record():
    r = _update(Workspace(), PROGRAM, 1)
    lines = PROGRAM.split("\n")
    for line in range(1, len(lines) + 1):
        for col in range(0, len(lines[line - 1]) + 1):
            scan = sorted((v for v in r.values if v.span.contains(line, col)),
                          key=lambda v: ((v.span.end_line - v.span.line), v.span.end_col - v.span.col))
            assert r.values_at(line, col) == scan


def test_a_released_session_replays_its_interpreter_for_questions():
    import gc
    import weakref
    from shapehint.lsp.features.lenses import run_lenses
    from shapehint.questions.branches import answer_branches
    from shapehint.questions.holes import answer_holes
    from shapehint.questions.migrate import answer_migration
    ws = Workspace()
    _update(ws, PROGRAM, 1)
    edited = PROGRAM.replace("w = z + 1", "w = z - 1")
    r = _update(ws, edited, 2)
    session = ws.session("m.py")
    lenses = run_lenses(r)
    before = _records(r)
    first = weakref.ref(session.interp)
    session.release()
    gc.collect()  # (the interpreter and its parts refer to each other)
    assert first() is None  # dropped: nothing else holds the interpreter (the result least of all)
    _update(ws, PROGRAM, 3)  # the document moves on: the replay must not depend on its cache
    assert run_lenses(r) == lenses  # plain data: no interpreter needed
    fresh = analyze_session(edited, "m.py")
    assert answer_migration(session) == answer_migration(fresh)
    assert session.interp is not None and first() is None  # a replayed one stands in
    assert answer_branches(session) == answer_branches(fresh)
    assert answer_holes(session) == answer_holes(fresh)
    assert _records(r) == before


def test_an_edit_inside_one_function_parses_and_analyses_only_that_function():
    from shapehint.frontend import splice
    calls = []
    real = splice.splice

    def spy(*args):
        out = real(*args)
        calls.append(out is not None)
        return out
    ws = Workspace()
    _update(ws, PROGRAM, 1)
    splice.splice = spy
    try:
        edited = PROGRAM.replace("w = z + 1", "w = z * 3")
        r = _update(ws, edited, 2)
    finally:
        splice.splice = real
    assert calls == [True]
    assert r.stats["reanalysed"] == ["unrelated"]
    assert _same(r, analyze_source(edited, "m.py"))


def test_a_capture_touching_an_edited_line_is_not_half_restored():
    from shapehint.analysis.sink import Sink, restore
    from shapehint.shapes.shape import Shape
    from shapehint.shapes.values import Span, TensorV
    t = TensorV(Shape.unknown("x*"), None, None)
    captured = {"obs": [((Span(1, 0, 1, 1), "f", "a", True, "tensor"), "tensor", ("", False, t, "")),
                        ((Span(5, 0, 5, 1), "f", "b", True, "tensor"), "tensor", ("", False, t, ""))],
                "diags": [], "annotated": set()}
    sink = Sink("m.py")
    assert not restore(sink, captured, "f", lambda line: None if line == 5 else line)
    assert sink._acc == {}
