"""The lighter analyses the CLI uses for answers give the same answers as a full analysis.

- `records=False` (check, migrate, branches, holes): no records and no hover table, the same
  diagnostics and the same question answers.
- `functions={F}` (`migrate --function F`): only F's own analysis runs, and F's migration is
  the one a full analysis gives (calls run the callee's body in the caller's context, so F's
  analysis needs no other function's).
- `branches --function F` (`answer_branches(..., entry=F)` after `functions={F}`): the branches F
  reaches, judged for F's inputs; where F is the only entry that reaches a branch, the answer is
  the full analysis's.
"""
import json
import pathlib
import subprocess
import sys

import pytest

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.branches import answer_branches
from shapehint.questions.holes import answer_holes
from shapehint.questions.migrate import answer_migration, migratable_functions

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = sorted([*(ROOT / "tests" / "questions" / "programs").glob("*.py"),
                 *(ROOT / "bench" / "peer" / "programs").glob("*.py"),
                 *(ROOT / "tests" / "cases").glob("*.py")])


def _ids(paths):
    return [f"{p.parent.name}/{p.name}" for p in paths]


@pytest.mark.parametrize("path", CORPUS, ids=_ids(CORPUS))
def test_no_records_same_diagnostics_and_answers(path):
    text = path.read_text()
    full = analyze_session(text, str(path))
    light = analyze_session(text, str(path), records=False)
    assert light.result.values == [] and light.result.dims == {}
    assert [d.to_json() for d in light.result.diagnostics] == [d.to_json() for d in full.result.diagnostics]
    assert answer_branches(light) == answer_branches(full)
    assert answer_holes(light) == answer_holes(full)
    assert answer_migration(light) == answer_migration(full)
    assert full.result.values, "a full analysis still builds its records"


def _migratable(path):
    text = path.read_text()
    return [(path, q) for q in migratable_functions(analyze_session(text, str(path), records=False))]


PAIRS = [pair for p in CORPUS for pair in _migratable(p)]


@pytest.mark.parametrize("path,qualname", PAIRS, ids=[f"{p.name}:{q}" for p, q in PAIRS])
def test_one_function_analysis_gives_the_full_migration(path, qualname):
    text = path.read_text()
    full = answer_migration(analyze_session(text, str(path)), only=qualname)
    one = analyze_session(text, str(path), records=False, functions={qualname})
    assert qualname.split(".<locals>.")[0] in one.result.stats["reanalysed"]  # (and what a nested function needs)
    assert len(set(one.result.stats["reanalysed"])) <= qualname.count(".<locals>.") + 1
    assert answer_migration(one, only=qualname) == full
    # the scoped range constraints of Q2 too
    params = [p["name"] for p in full[0]["params"] if p["ranks"]]
    if params:
        assume = [f"{qualname}: 2 <= {params[0]}.shape[0] <= 9"]
        assert answer_migration(analyze_session(text, str(path), records=False, functions={qualname}),
                                assume, qualname) == \
            answer_migration(analyze_session(text, str(path)), assume, qualname)


def _full_branches(path):
    """(the full analysis's answers, (line, col) -> the entry functions whose analyses reach it);
    entries are the functions no other function calls."""
    full = analyze_session(path.read_text(), str(path), records=False)
    it = full.interp
    called = {f for f, roots in it.called_from.items() if roots - {"<module>", f}}
    entries_at: dict = {}
    for r in it.branches:
        if r.root not in (None, "<module>") and r.root not in called:
            entries_at.setdefault((r.node.lineno, r.node.col_offset), set()).add(r.root)
    return answer_branches(full), entries_at


def _entries(path):
    """[(path, F)] for each entry F that is the only entry reaching some answered branch."""
    answers, entries_at = _full_branches(path)
    return sorted({(path, next(iter(entries_at[(b["line"], b["col"])]))) for b in answers
                   if len(entries_at.get((b["line"], b["col"]), ())) == 1})


ENTRIES = [pair for p in CORPUS for pair in _entries(p)]


@pytest.mark.parametrize("path,entry", ENTRIES, ids=[f"{p.name}:{q}" for p, q in ENTRIES])
def test_entry_branches_are_the_full_answers_of_what_only_that_entry_reaches(path, entry):
    full_answers, entries_at = _full_branches(path)
    one = analyze_session(path.read_text(), str(path), records=False, functions={entry})
    got = answer_branches(one, entry=entry)
    assert {(b["line"], b["col"]) for b in got} <= {k for k, v in entries_at.items() if entry in v}
    expected = [b for b in full_answers if entries_at.get((b["line"], b["col"])) == {entry}]
    assert expected
    assert [b for b in got if entries_at.get((b["line"], b["col"])) == {entry}] == expected


def test_branches_function_option():
    path = ROOT / "bench" / "peer" / "programs" / "bert.py"
    got = _cli("branches", str(path), "--function", "BertModel.forward", "--format", "json")
    assert got.returncode == 0, got.stderr
    statuses = {b["condition"]: b["status"] for b in json.loads(got.stdout)["branches"]}
    assert statuses == {"input_ids.dim() != 2": "always-false", "attention_mask.dim() == 3": "always-false",
                        "attention_mask.dim() == 2": "always-true"}
    bad = _cli("branches", str(path), "--function", "BertModel.nope")
    assert bad.returncode == 2 and "no function 'BertModel.nope'" in bad.stderr


def test_smallest_model_lowers_dimensions_in_parameter_order():
    """The migration's static shape lowers the first parameter's dimensions first, whatever the
    internal symbol names sort as (`x.shape[..]` sorts before `y.shape[..]`)."""
    text = ("import torch\nfrom torch.fx.tensor_type import Dyn, TensorType\n\n"
            "def f(y: TensorType([Dyn, Dyn]), x: TensorType([Dyn, Dyn])):\n"
            "    assert x.shape[1] + y.shape[0] == 12\n"
            "    return y + 1, x + 1\n")
    got = answer_migration(analyze_session(text, "order.py", records=False), only="f")
    # (a batch of 2 first where the facts allow it: BatchNorm in training needs more than one sample)
    assert [(p["name"], p["shape"]) for p in got[0]["params"]] == [("y", [2, 1]), ("x", [2, 10])]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "shapehint", *args], capture_output=True, text=True, timeout=120)


def test_migrate_function_option():
    path = ROOT / "bench" / "peer" / "programs" / "conv_fixed.py"
    got = _cli("migrate", str(path), "--function", "ConvFixed.forward", "--format", "json",
               "--assume", "ConvFixed.forward: 5 <= x.shape[0] <= 20")
    assert got.returncode == 0, got.stderr
    funcs = json.loads(got.stdout)["functions"]
    assert [f["function"] for f in funcs] == ["ConvFixed.forward"]
    assert funcs[0]["status"] == "static" and funcs[0]["params"][0]["shape"][:2] == [5, 4]


def test_migrate_unknown_function_is_a_usage_error():
    path = ROOT / "bench" / "peer" / "programs" / "conv_fixed.py"
    got = _cli("migrate", str(path), "--function", "Nope.forward")
    assert got.returncode == 2 and got.stdout == ""
    assert "no function 'Nope.forward'" in got.stderr and "ConvFixed.forward" in got.stderr
    assert "Traceback" not in got.stderr


def test_a_nested_function_is_answered_once_and_on_its_own():
    text = ("import torch\n\n"
            "def outer(n):\n"
            "    def inner(x):\n"
            "        return torch.flatten(x, 1) @ torch.zeros(12, 3)\n"
            "    return inner(torch.zeros(n, 3, 4))\n\n"
            "outer(2)\nouter(5)\n")
    every = answer_migration(analyze_session(text, "nested.py"))
    assert [f["function"] for f in every].count("outer.<locals>.inner") == 1
    full = [f for f in every if f["function"] == "outer.<locals>.inner"]
    one = analyze_session(text, "nested.py", records=False, functions={"outer.<locals>.inner"})
    assert answer_migration(one, only="outer.<locals>.inner") == full


def test_check_without_records_keeps_shape_comment_warnings_and_notes():
    """Diagnostics that read inferred shapes (SH204's checked `# [B, T, C]` comments, a note's
    "gets its shape [B, 576] here") do not depend on the records."""
    text = ("import torch\nfrom jaxtyping import Float\nfrom torch import Tensor\n\n"
            "def f(x: Float[Tensor, \"B 3 4\"]):\n"
            "    y = x.transpose(1, 2)  # [B, 3, 4]\n"
            "    z = torch.flatten(y, 1)\n"
            "    return torch.nn.Linear(7, 2)(z)\n")
    full, light = analyze_source(text, "c.py"), analyze_source(text, "c.py", records=False)
    assert [d.code for d in light.diagnostics] == ["SH204", "SH101"]
    assert [d.to_json() for d in light.diagnostics] == [d.to_json() for d in full.diagnostics]
