"""The CLI on bad input: one clear line on stderr, the documented exit status, no traceback."""
import json
import os
import subprocess
import sys

import pytest

from shapehint import cli

GOOD = "import torch\nx = torch.zeros(2, 3)\ny = x.sum(0)\n"


def run(*args, cwd=None, env=None):
    p = subprocess.run([sys.executable, "-m", "shapehint", *args], capture_output=True, text=True, cwd=cwd, env=env,
                       timeout=120)
    assert "Traceback" not in p.stderr, p.stderr
    return p


def test_missing_path(tmp_path):
    p = run("check", str(tmp_path / "nope.py"))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "no such file" in p.stderr


def test_directory_of_binary_files(tmp_path):
    (tmp_path / "a.py").write_bytes(b"\x00\x01\x02binary\xff")
    (tmp_path / "b.py").write_text(GOOD)
    p = run("check", str(tmp_path))
    assert p.returncode == 2 and "binary" in p.stderr and p.stderr.count("\n") == 1
    assert "2 files" not in p.stdout  # the good file is still checked
    assert "1 file checked" in p.stdout


def test_non_utf8_file(tmp_path):
    f = tmp_path / "latin.py"
    f.write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    p = run("check", str(f))
    assert p.returncode == 2 and "UTF-8" in p.stderr


def test_ten_megabyte_file_is_skipped_with_a_note(tmp_path):
    f = tmp_path / "big.py"
    f.write_text("x = 1\n" * (10 * 1024 * 1024 // 6))
    p = run("check", str(f))
    assert p.returncode == 0 and "skipped" in p.stderr and "SH002" in p.stderr


def test_symlink_loop(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    os.symlink(b, a)
    os.symlink(a, b)
    p = run("check", str(a))
    assert p.returncode == 2 and "symbolic link" in p.stderr


def test_unreadable_file(tmp_path, monkeypatch, capsys):
    f = tmp_path / "secret.py"
    f.write_text(GOOD)
    real_open = open

    def deny(path, *a, **k):
        if str(path) == str(f):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *a, **k)
    monkeypatch.setattr("builtins.open", deny)
    assert cli.main(["check", str(f)]) == 2
    err = capsys.readouterr().err
    assert "permission denied" in err and err.count("\n") == 1


def test_wrong_arguments():
    p = run("check")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    p = run("frobnicate")
    assert p.returncode == 2
    p = run("infer", "--format", "xml", "x.py")
    assert p.returncode == 2


def test_syntax_error_is_a_diagnostic_not_a_crash(tmp_path):
    f = tmp_path / "broken.py"
    f.write_text("import torch\ndef f(x):\n    return x.view(2,\n")
    p = run("check", str(f))
    assert p.returncode == 1 and "SH001" in p.stdout


def test_malformed_assume_exits_2(tmp_path):
    f = tmp_path / "m.py"
    f.write_text(GOOD)
    p = run("migrate", str(f), "--assume", "x.shape[0] <=")
    assert p.returncode == 2 and "--assume" in p.stderr


def test_hard_exit_writes_the_whole_answer(tmp_path):
    """The analysis commands end with os._exit (cli.entry): everything written must still arrive."""
    f = tmp_path / "big.py"
    f.write_text("import torch\n" + "".join(f"x{i} = torch.zeros({i % 7 + 1}, 3)\n" for i in range(3000)))
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout block-buffered
    p = run("infer", str(f), "--format", "json", env=buffered)
    assert p.returncode == 0
    values = json.loads(p.stdout)["values"]  # a truncated stream would not parse
    assert len(values) == 3000 and values[-1]["shape"] == [2999 % 7 + 1, 3]

