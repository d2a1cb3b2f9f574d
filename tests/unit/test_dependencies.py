"""A missing package the analysis needs is an installation problem with one clear line (exit 2),
never a silent "0 errors" (the analysis turns its own exceptions into no answers); and a run whose
analysis raised says why no input could be inferred."""
import os
import subprocess
import sys

SERVER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "server")
MODEL = """import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(4, 2)

    def forward(self, x):
        return self.l(x)
"""


def _cli(tmp_path, hide: str, *argv):
    """Run the CLI in a process where the module `hide` cannot be found."""
    code = (f"import sys; sys.modules[{hide!r}] = None\n"
            "from shapehint.cli import main\nsys.exit(main(sys.argv[1:]))")
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=SERVER), timeout=120, cwd=tmp_path)


def test_check_without_parso_says_what_to_install_instead_of_reporting_a_clean_file(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import torch\nx = torch.zeros(2, 3) @ torch.zeros(4, 5)\n")
    out = _cli(tmp_path, "parso", "check", str(f))
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.strip() == ("shapehint: missing Python package parso, which `shapehint check` "
                                  "needs: pip install parso"), out.stderr
    assert "checked" not in out.stdout


def test_the_language_server_needs_pygls_as_well(tmp_path):
    out = _cli(tmp_path, "pygls", "lsp")
    assert out.returncode == 2 and "pip install pygls" in out.stderr, out.stderr


def test_every_package_is_found_in_a_complete_install():
    from shapehint import dependencies
    assert dependencies.missing(dependencies.ANALYSIS + dependencies.LANGUAGE_SERVER) == []
    assert dependencies.missing((("shapehint_no_such_module", "no-such-dist"),)) == ["no-such-dist"]


def test_a_run_whose_analysis_raised_says_why_no_input_was_inferred(tmp_path):
    """A stand-in parso that fails on import passes the check above (it is found) and makes the
    analysis raise: the run's one line names that error, not an attribute error after it."""
    (tmp_path / "stub").mkdir()
    (tmp_path / "stub" / "parso.py").write_text("raise ImportError('parso is broken here')\n")
    f = tmp_path / "m.py"
    f.write_text(MODEL)
    out = subprocess.run([sys.executable, "-m", "shapehint.cli", "run", str(f), "--entry", "Net",
                          "--device", "cpu", "--format", "json"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "stub"), SERVER])),
                         timeout=300, cwd=tmp_path)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "ImportError: parso is broken here" in out.stderr and "NoneType" not in out.stderr, out.stderr
