"""Rules of the case corpus (tests/cases/*.py and shared/examples/*.py), independent of the engine."""
from __future__ import annotations

import json
import os

import pytest

from tests.test_cases import CASES_DIR, EXAMPLES_DIR, ROOT, case_files, expect

FILES = case_files()
CASES = [f for f in FILES if os.path.dirname(f) == CASES_DIR]
EXAMPLES = [f for f in FILES if os.path.dirname(f) == EXAMPLES_DIR]
PARSED = {f: expect.parse_case(f) for f in FILES}


def _id(path):
    return os.path.relpath(path, ROOT)


def _codes():
    with open(os.path.join(ROOT, "shared", "diagnostics.json"), encoding="utf-8") as fh:
        return json.load(fh)["codes"]


def test_corpus_size():
    assert len(CASES) >= 30, f"only {len(CASES)} case programs"
    with_errors = [f for f in CASES if any(m.kind == "E" for m in PARSED[f].markers)]
    assert len(with_errors) >= 10, f"only {len(with_errors)} case programs with E markers"
    symbolic = [f for f in CASES if PARSED[f].bindings]
    assert len(symbolic) >= 12, f"only {len(symbolic)} symbolic case programs"


def test_examples_present():
    names = {os.path.basename(f) for f in EXAMPLES}
    assert {"cnn_bug.py", "gpt.py", "resnet.py"} <= names
    bug = PARSED[os.path.join(EXAMPLES_DIR, "cnn_bug.py")]
    assert [m.kind for m in bug.markers] == ["bug"], "cnn_bug.py documents its error with one `# bug:` comment"


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_case_file_rules(path):
    case = PARSED[path]
    assert not case.errors, "\n".join(case.errors)
    assert len(case.text.splitlines()) >= 30, "a case program has at least 30 lines"
    assert len(case.expectations) >= 8, f"only {len(case.expectations)} expectations"
    codes = _codes()
    for m in case.markers:
        if m.code is not None:
            assert m.code in codes, f"line {m.line}: unknown code {m.code}"
        if m.kind == "E":
            assert codes[m.code]["severity"] == "error", f"line {m.line}: E[{m.code}] is not an error code"
            assert os.path.dirname(path) == CASES_DIR, "examples mark bugs with `# bug:`, not E[]"
        if m.kind == "W":
            assert codes[m.code]["severity"] == "warning", f"line {m.line}: W[{m.code}] is not a warning code"
    errors = [m.line for m in case.markers if m.kind in ("E", "bug")]
    if errors:
        first = min(errors)
        assert first not in case.expectations, f"line {first}: a failing line carries no expectation"
    if case.entries:
        symbolic = any(expect.symbols(d) for _, inputs in case.entries for dims, _ in inputs.values() for d in dims)
        assert not symbolic or case.bindings, "a symbolic `# entry:` needs `# verify:` bindings"
