"""Regression: Q3 on the peer benchmark's BERT-style and XGLM-style programs
(bench/peer/programs/, `# Q3:` tags), with the answers the referee observed by executing them
(bench/peer/verify.py): branches in helper methods and submodules, decided through the model
that calls them, and size-tuple comparisons."""
import ast
import pathlib

import pytest

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.branches import answer_branches

PROGRAMS = pathlib.Path(__file__).resolve().parents[2] / "bench" / "peer" / "programs"
XGLM_CONSTRAINTS = ["input_ids.dim() == 2", "input_ids.shape[0] > 0", "1 < input_ids.shape[1] < 2000"]
T, F, D = "always-true", "always-false", "depends"


def _tags(text: str) -> dict:
    lines = text.split("\n")
    out = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.If) and "# Q3:" in lines[node.lineno - 1]:
            out[lines[node.lineno - 1].split("# Q3:")[1].split()[0]] = node.lineno
    return out


def _answers(name: str, assume=()) -> dict:
    path = PROGRAMS / name
    text = path.read_text()
    by_line = {b["line"]: b for b in answer_branches(analyze_session(text, str(path)), list(assume))}
    return {tag: by_line[line] for tag, line in _tags(text).items()}


@pytest.mark.parametrize("name, assume, expected", [
    ("bert.py", [], {"b1": F, "b2": F, "b3": T}),
    ("xglm.py", [], {"b1": D, "b2": D, "b3": F, "b4": F, "b5": F}),
    ("xglm.py", XGLM_CONSTRAINTS, {"b1": T, "b2": F, "b3": F, "b4": F, "b5": F}),
])
def test_peer_programs(name, assume, expected):
    got = _answers(name, assume)
    assert {t: b["status"] for t, b in got.items()} == expected
    for b in got.values():  # witnesses are inputs of the model's forward
        assert b["witness_function"].endswith("Model.forward")
        for outcome, w in b["witnesses"].items():
            assert (w is not None) == (b["status"] in (D, f"always-{outcome}")), b
            if w is not None and assume:
                batch, seq = w["input_ids"]
                assert batch > 0 and 1 < seq < 2000
