"""Smoke tests of bench/: the module generator and the peer answers (never times).

The timed runs live in `python bench/run.py`; here only the generators and a quick answer
comparison on the ECOOP micro-benchmarks run (a few seconds in all).
"""
from __future__ import annotations

import ast
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "peer"))

import gen  # noqa: E402


@pytest.mark.parametrize("lines", [300, 1000, 2000])
def test_generator_size_and_syntax(lines):
    text = gen.generate(lines, seed=1)
    n = text.count("\n") + 1
    assert lines <= n <= lines + 80
    tree = ast.parse(text)
    classes = [s for s in tree.body if isinstance(s, ast.ClassDef)]
    assert len(classes) >= lines // 60
    for c in classes:
        names = {f.name for f in c.body if isinstance(f, ast.FunctionDef)}
        assert {"__init__", "forward"} <= names
    # no module-level execution besides imports, classes, functions and the docstring
    for s in tree.body:
        assert isinstance(s, (ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef)) or (
            isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))


def test_generator_is_deterministic_and_seeded():
    assert gen.generate(800, seed=3) == gen.generate(800, seed=3)
    assert gen.generate(800, seed=3) != gen.generate(800, seed=4)


def test_edit_and_hover_targets():
    text = gen.generate(2000, seed=1)
    line, good, bad = gen.edit_target(text)
    assert text.split("\n")[line] == good and good != bad
    edited = text.split("\n")
    edited[line] = bad
    ast.parse("\n".join(edited))
    targets = gen.hover_targets(text)
    lines = text.split("\n")
    assert len(targets) >= 100
    for ln, col in targets[:50]:
        assert lines[ln][col].isidentifier()


def test_peer_answers_on_the_micro_benchmarks():
    pytest.importorskip("torch")
    pytest.importorskip("z3")
    import benchmarks
    import run_fx
    import run_shapehint
    import verify

    out = {}
    for name in ("BmmExample", "ConvExample", "ConvExample (fixed)"):
        b = benchmarks.by_name(name)
        path = str(pathlib.Path(benchmarks.PROGRAMS) / b["file"])
        text = open(path).read()
        cls = getattr(run_fx.load(b["file"]), b["cls"])
        for q in b["questions"]:
            cons = q.get("constraints", []) if q["kind"] == "Q2" else []
            sh = run_shapehint.migration(b, path, text, cons)
            fx = run_fx.q1(b, cls) if q["kind"] == "Q1" else run_fx.q2(b, cls, cons)
            model = getattr(verify.load(b["file"])[0], b["cls"])().to("meta").eval()
            v = verify.verify_migration(b, q, {"shapehint": sh, "fx": fx}, model)
            out[(name, q["id"])] = (sh, fx, v)

    # BmmExample: ill-typed (4 columns against 5 rows): no migration; executing agrees.
    sh, fx, v = out[("BmmExample", "Q1")]
    assert sh["answer"] == "none" and v["truth"] == "none"
    assert fx["answer"] in ("static", "none", "unknown")  # the peer's bmm rule ignores the inner dimension
    # ConvExample (Listing 2): no static migration; dimension 1 of x can only be Dyn, on both sides.
    sh, fx, v = out[("ConvExample", "Q1")]
    assert sh["answer"] == fx["answer"] == "none" and v["truth"] == "none"
    assert sh["params"]["x"]["dyn_dims"] == fx["params"]["x"]["dyn_dims"] == [1]
    # The fixed program: a migration exists; under the paper's ranges both find one that runs.
    sh, fx, v = out[("ConvExample (fixed)", "Q2")]
    assert sh["answer"] == fx["answer"] == "static" and v["truth"] == "static"
    for t in v["tried"]:
        assert t["runs"] and t["meets_constraints"], t


def test_readme_marker_replacement(tmp_path):
    import importlib.util  # by path: bench/realmodels/run.py is another `run` on sys.path
    spec = importlib.util.spec_from_file_location("bench_run", str(ROOT / "bench" / "run.py"))
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    readme = tmp_path / "README.md"
    readme.write_text("# X\n\n<!-- perf:start -->\nold table\n<!-- perf:end -->\n\nafter\n")
    assert run.update_readme("| a | b |\n| --- | --- |\n| 1 | 2 |", str(readme))
    text = readme.read_text()
    assert "old table" not in text and "| 1 | 2 |" in text
    assert text.startswith("# X\n\n<!-- perf:start -->\n") and text.endswith("<!-- perf:end -->\n\nafter\n")
    assert run.update_readme("again", str(readme)) and "| 1 | 2 |" not in readme.read_text()
    missing = tmp_path / "NO_MARKERS.md"
    missing.write_text("nothing here\n")
    assert not run.update_readme("t", str(missing)) and missing.read_text() == "nothing here\n"
    assert not run.update_readme("t", str(tmp_path / "absent.md"))


def test_scale_launcher_reports_the_checks_answer_and_peak_memory(tmp_path):
    """bench/scale.py runs `cli.entry` (which ends with a hard exit) through a launcher hooked
    into `cli.hard_exit`: without that hook the peak-memory column would silently go blank."""
    import scale
    f = tmp_path / "bug.py"
    f.write_text("import torch\nx = torch.zeros(2, 3) @ torch.zeros(4, 5)\n")
    r = scale.run_check(str(f))
    assert r["exit"] == 1 and r["diagnostics"] == 1
    assert r["peak_rss_mb"] is not None and r["peak_rss_mb"] > 10


def test_profile_check_measures_module_bodies_and_imported_calls(tmp_path):
    """bench/profile_check.py wraps the analysis's own functions: a rename must fail here, not
    quietly measure nothing."""
    import re
    import subprocess
    (tmp_path / "helpers.py").write_text(
        "import torch\n\nSCALE = 2\n\n\ndef widen(x):\n    for _ in range(3):\n        x = x * SCALE\n    return x\n")
    (tmp_path / "model.py").write_text(
        "import torch\nfrom helpers import widen\n\n\ndef f(x: torch.Tensor):\n    return widen(x)\n\n\n"
        "y = f(torch.zeros(2, 3))\n")
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "profile_check.py"), str(tmp_path / "model.py")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    row = next(line for line in p.stdout.splitlines() if "model.py" in line)
    _, steps, run, bodies, calls, _ = [c.strip() for c in row.strip("|").split("|")[1:]]
    assert int(steps.replace(",", "")) > 0
    assert 0 < int(run.replace(",", "")) <= int(steps.replace(",", ""))  # hits are charged, not run
    def steps_of(cell: str) -> int:  # "1,234, 0.05": steps, then CPU seconds
        return int(cell.rsplit(", ", 1)[0].replace(",", ""))

    assert steps_of(bodies) > 0, "helpers.py's body ran"
    assert steps_of(calls) > 0, "f's call of widen is a call into imported code"
    assert re.search(r"^\s+[\d.]+\s+widen \(\d+\)$", p.stdout, re.M), p.stdout


def test_profile_contexts_lists_each_construction_context(tmp_path):
    """bench/profile_contexts.py wraps `built.run_in_context` (and flag_defaults' name for it),
    `sized_kwargs.run_models` and `FactStore._solve`: a rename must fail here, not quietly
    charge everything to the rest of the analysis."""
    import subprocess
    (tmp_path / "model.py").write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n"
        "    def __init__(self, width, depth):\n        super().__init__()\n"
        "        self.layers = nn.Sequential(*[nn.Linear(width, width) for _ in range(depth)])\n\n"
        "    def forward(self, x):\n        return self.layers(x)\n\n\n"
        "def net_small(**kwargs):\n    return Net(16, 2, **kwargs)\n")
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "profile_contexts.py"), "--all",
                        str(tmp_path / "model.py")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    labels = [line.split("  ")[-1] for line in p.stdout.splitlines()[2:] if not line.startswith("  (")]
    assert "net_small:15" in labels, p.stdout
    assert "net_small (sized rerun and forwards)" in labels, p.stdout
    assert "(outside contexts)" in labels, p.stdout
