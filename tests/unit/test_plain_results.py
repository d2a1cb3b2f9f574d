"""An `AnalysisResult` is plain, frozen data; the live analysis is its `AnalysisSession`'s.

The result holds no interpreter (dropping the session frees it, records built or not yet), no
attribute of it can be set after the analysis, and its failures are typed records; what needs
the interpreter (the questions) goes through the session, which replays a released analysis.
"""
from __future__ import annotations

import dataclasses
import gc
import weakref

import pytest

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.analysis.engine import run
from shapehint.analysis.interp import Interp
from shapehint.analysis.result import AnalysisResult, Failure
from shapehint.analysis.workspace import Workspace

PROGRAM = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y = self.fc(x)
        return y @ torch.zeros(5, 2)


def helper():
    return torch.zeros(4, 5).view(2, 3)
'''


def _freed(make) -> bool:
    """Whether the interpreter of the analysis `make(session)` returns from is gone once only
    what `make` returned is kept."""
    session = run(PROGRAM, "m.py", defer_values=True)
    it = weakref.ref(session.interp)
    kept = make(session)
    del session
    gc.collect()  # (the interpreter and its parts refer to each other)
    alive = it() is not None
    assert kept is not None
    return not alive


def test_the_result_does_not_hold_the_interpreter():
    assert _freed(lambda s: s.result)  # records not built yet: their builder holds only the sink
    assert _freed(lambda s: (s.result, s.result.values))  # built: nothing of the analysis is left
    assert not _freed(lambda s: s)  # (the check can fail: the session does hold it)


def test_a_result_is_frozen_after_the_analysis():
    results = [analyze_source(PROGRAM, "m.py"), analyze_source(PROGRAM, "m.py", records=False)]
    ws = Workspace()
    results.append(ws.update("m.py", PROGRAM, 1))
    assert dataclasses.is_dataclass(AnalysisResult) and AnalysisResult.__dataclass_params__.frozen
    for r in results:
        for f in dataclasses.fields(r):
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(r, f.name, getattr(r, f.name))
        with pytest.raises(dataclasses.FrozenInstanceError):
            r.interp = None  # nothing new either
        assert not any(isinstance(getattr(r, f.name), Interp) for f in dataclasses.fields(r))


def test_failures_are_typed_records_of_the_analysis():
    session = analyze_session(PROGRAM, "m.py")
    got = session.result.failures
    assert got and all(isinstance(f, Failure) for f in got)
    assert {(f.function, f.span.line) for f in got} >= {("Net.forward", 12), ("helper", 16)}
    assert list(got) == session.failures()  # the same records the questions read


def test_a_changed_copy_keeps_the_analysis():
    session = analyze_session(PROGRAM, "m.py")
    quiet = session.replacing(diagnostics=[])
    assert quiet.result.diagnostics == [] and session.result.diagnostics
    assert quiet.interp is session.interp
    assert quiet.result.values == session.result.values


def test_a_session_without_an_analysis_answers_nothing():
    from shapehint.analysis.api import failed
    from shapehint.questions.migrate import answer_migration
    from shapehint.questions.signatures import signatures_json
    session = failed(PROGRAM, "m.py", ValueError("simulated"))
    assert not session.live() and session.interp is None
    assert signatures_json(session) == []
    assert session.result.stats["internal_errors"] == ["ValueError: simulated"]
    with pytest.raises(AttributeError):
        answer_migration(session)  # (callers check `live()` first)
