"""Import boundaries: analysis never sees the protocol, z3 only in the solver, torch nowhere in the core."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2] / "server" / "shapehint"
IMPORT = re.compile(r"^\s*(?:import|from)\s+([\w.]+)", re.M)


def imports_of(path):
    return set(m.group(1).split(".")[0] for m in IMPORT.finditer(path.read_text()))


def files(*subdirs):
    for sub in subdirs:
        yield from (ROOT / sub).rglob("*.py")


def test_no_protocol_outside_lsp():
    for f in files("shapes", "ops", "solver", "frontend", "analysis", "questions"):
        assert not imports_of(f) & {"pygls", "lsprotocol"}, f


def test_z3_only_in_solver():
    for f in files("shapes", "ops", "frontend", "analysis", "questions", "lsp"):
        if f.name == "debug.py":  # the test-only slow-query hook
            continue
        assert "z3" not in imports_of(f), f


def test_torch_not_in_core():
    for f in files("shapes", "ops", "solver", "frontend", "analysis", "questions", "lsp"):
        assert "torch" not in imports_of(f), f


def test_parso_only_in_frontend():
    for f in files("shapes", "ops", "solver", "analysis", "questions"):
        assert "parso" not in imports_of(f), f


def test_runner_is_standalone():
    """runner.py and its parts (the runner_*.py files it loads by path) import nothing of ours."""
    parts = sorted((ROOT / "devicerun").glob("runner*.py"))
    assert len(parts) >= 2
    for path in parts:
        assert not imports_of(path) & {"shapehint", "devicerun"}, path
        assert not re.search(r"^\s*from\s+\.", path.read_text(), re.M), path  # no relative import either


def test_heap_is_standalone():
    assert imports_of(ROOT / "gc_policy.py") <= {"__future__", "gc", "threading", "contextlib", "ctypes"}
