"""The benchmarks write the server's bytecode before they time any ShapeHint process
(bench/realmodels/pipeline.compile_server): with PYTHONDONTWRITEBYTECODE set nothing else writes
it, and every process would compile its ~200 modules again."""
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "realmodels"))
import pipeline  # noqa: E402


def _package(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text("X = 1\n")
    return pkg


def test_writes_the_bytecode_even_where_the_environment_says_not_to(tmp_path, monkeypatch):
    pkg = _package(tmp_path)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert pipeline.compile_server(str(pkg)) == 2
    assert os.path.exists(importlib.util.cache_from_source(str(pkg / "mod.py")))
    assert pipeline.compile_server(str(pkg)) == 0  # current bytecode is kept


def test_a_module_edited_later_is_compiled_again(tmp_path):
    pkg = _package(tmp_path)
    pipeline.compile_server(str(pkg))
    (pkg / "mod.py").write_text("X = 2  # edited\n")
    os.utime(pkg / "mod.py", (1, 1))  # another mtime than the bytecode records, however fast the test runs
    assert pipeline.compile_server(str(pkg)) == 1


def test_a_process_that_may_not_write_bytecode_reads_it(tmp_path):
    pkg = _package(tmp_path)
    pipeline.compile_server(str(pkg))
    code = "import pkg.mod, sys; print(pkg.mod.__spec__.cached, pkg.mod.X)"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"), check=True).stdout.split()
    assert os.path.exists(out[0]) and out[1] == "1"
