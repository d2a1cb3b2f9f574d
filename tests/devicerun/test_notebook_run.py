"""`shapehint run nb.ipynb --cell N`: the code cells up to cell N, magics skipped, lines in cells."""
import argparse
import json

import pytest

from shapehint.devicerun import run_command as cli

from ..notebook_files import notebook

CELLS = [
    ("markdown", "# Running a notebook"),
    ("code", "%load_ext autoreload\n!echo this would be a shell command\nimport torch\nimport torch.nn as nn"),
    ("code", "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
             "        self.fc = nn.Linear(3, 4)\n\n    def forward(self, x):\n        y = self.fc(x)\n        return y"),
    ("code", "%%time\nnet = Net()\nout = net(torch.zeros(2, 3))"),
    ("code", "bad = net(torch.zeros(2, 5))  # fails when run"),
]


def _args(*argv):
    p = argparse.ArgumentParser()
    cli.add_arguments(p)
    return p.parse_args(list(argv))


@pytest.fixture
def nb(tmp_path):
    f = tmp_path / "run.ipynb"
    f.write_text(notebook(CELLS))
    return str(f)


def test_run_up_to_a_cell_skips_magics_and_later_cells(nb, capsys):
    rc = cli.main(_args(nb, "--cell", "3", "--device", "cpu", "--format", "json"))
    out, err = capsys.readouterr()
    r = json.loads(out)
    assert rc == 0 and r["error"] is None  # cell 4 (which fails) did not run; the magics did not break it
    lines = {it["name"]: it for it in r["lines"]}
    assert (lines["y"]["cell"], lines["y"]["line"], lines["y"]["col"]) == (2, 7, 8)
    assert (lines["out"]["cell"], lines["out"]["line"]) == (3, 3)
    assert lines["out"]["observed"] == [2, 4] and lines["out"]["status"] == "match"
    assert all(it["file"] == nb for it in r["lines"])


def test_run_every_cell_reports_the_error_in_its_cell(nb, capsys):
    rc = cli.main(_args(nb, "--device", "cpu"))
    out, _ = capsys.readouterr()
    assert rc == 1
    assert f"{nb}:cell 4:3:1: match out [2, 4]" in out
    assert f"{nb}:cell 3:7: error SH502 RuntimeError" in out  # inside forward, called from cell 5


@pytest.mark.parametrize("argv,message", [(["--cell", "9"], "no cell 9: cells are numbered 0 to 4"),
                                          (["--cell", "-1"], "no cell -1")])
def test_bad_cells_exit_2(nb, capsys, argv, message):
    assert cli.main(_args(nb, *argv, "--device", "meta")) == 2
    assert message in capsys.readouterr().err


def test_cell_is_for_notebooks_and_bad_json_is_one_line(tmp_path, capsys):
    py = tmp_path / "m.py"
    py.write_text("x = 1\n")
    assert cli.main(_args(str(py), "--cell", "0")) == 2
    assert "--cell is for notebooks" in capsys.readouterr().err
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{")
    assert cli.main(_args(str(bad))) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not valid notebook JSON" in err
