"""Properties (hypothesis), without a transport: on randomly edited programs the features never
raise, and every code action yields code that parses and changes only its own range.
The analysis layer never imports pygls or lsprotocol."""
from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

from hypothesis import HealthCheck, given, settings, strategies as st

from shapehint.analysis.api import analyze_session
from shapehint.lsp.features import actions, hover, inlay

EXAMPLES = pathlib.Path(__file__).parent / "examples"
SOURCES = [(EXAMPLES / n).read_text() for n in ("cnn.py", "down.py", "hints.py")]
SNIPPETS = ["", "x", ")", "(", " # [B]", "  # shapehint: ignore", ".view(-1)", " * 2", ":", "\n", "é𝔘"]


@st.composite
def edited(draw):
    text = draw(st.sampled_from(SOURCES))
    lines = text.split("\n")
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        col = draw(st.integers(0, len(lines[i])))
        cut = draw(st.integers(0, 4))
        lines[i] = lines[i][:col] + draw(st.sampled_from(SNIPPETS)) + lines[i][col + cut:]
    return "\n".join(lines)


def _apply(text: str, edits) -> str:
    lines = text.split("\n")
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln) + 1)
    for e in sorted(edits, key=lambda e: (e.line, e.col), reverse=True):
        a, b = offsets[e.line - 1] + e.col, offsets[e.end_line - 1] + e.end_col
        text = text[:a] + e.new_text + text[b:]
    return text


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(edited())
def test_features_never_raise_and_actions_keep_code_valid(text):
    session = analyze_session(text, "m.py")
    result = session.result
    n = len(text.split("\n"))
    inlay.inlay_hints(result, 1, n, "all")
    for v in result.values:
        hover.hover(result, v.span.line, v.span.col)
    try:
        ast.parse(text)
        valid = True
    except SyntaxError:
        valid = False
    for line in range(1, n + 1):
        ctx = actions.ActionContext(result, line, 0, line, 0, list(result.diagnostics), session=session)
        for act in actions.code_actions(ctx):
            new = _apply(text, act.edits)
            if valid:
                ast.parse(new)  # an action never breaks a valid program
            before, after = text.split("\n"), new.split("\n")
            for e in act.edits:  # only its own lines change
                assert before[:e.line - 1] == after[:e.line - 1]
                tail = len(before) - e.end_line
                assert before[len(before) - tail:] == after[len(after) - tail:]
            if valid and line % 7 == 0:  # applying it twice is harmless, or it is not offered again
                again = analyze_session(new, "m.py")
                ctx2 = actions.ActionContext(again.result, line, 0, line, 0, list(again.result.diagnostics),
                                             session=again)
                for act2 in actions.code_actions(ctx2):
                    if act2.title == act.title:
                        ast.parse(_apply(new, act2.edits))


def test_analysis_and_config_never_import_the_protocol():
    code = ("import sys, shapehint.analysis.api, shapehint.config; "
            "shapehint.analysis.api.analyze_source('import torch\\nx = 1\\n', 'm.py'); "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
