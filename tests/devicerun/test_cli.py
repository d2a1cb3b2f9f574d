"""`shapehint run` CLI glue: what is printed before running, formats, exit statuses."""
import argparse
import json

import pytest

from shapehint.devicerun import run_command as cli

from .helpers import fixture


def _args(*argv):
    p = argparse.ArgumentParser()
    cli.add_arguments(p)
    return p.parse_args(list(argv))


def test_json_run_says_what_it_executes_first(capsys, monkeypatch):
    # no engine in this test: inference is stubbed out so the run itself is what is checked
    monkeypatch.setattr("shapehint.devicerun.api._inferred", lambda text, path, notes: {"values": []})
    path, _ = fixture("cnn.py")
    rc = cli.main(_args(path, "--entry", "Net", "--device", "meta", "--input", "x=2,3,32,32", "--format", "json"))
    out, err = capsys.readouterr()
    assert rc == 0
    assert err.startswith("shapehint run: about to execute " + path) and "Net().forward(x=[2, 3, 32, 32])" in err
    r = json.loads(out)
    assert r["device"] == "meta" and r["entry"] == "Net" and r["inputs"]["x"]["shape"] == [2, 3, 32, 32]
    assert set(r) >= {"device", "entry", "inputs", "lines", "mismatches", "error"}
    assert all(set(it) >= {"file", "line", "col", "name", "function", "context", "observed", "inferred", "status"}
               for it in r["lines"])


def test_text_run_with_runtime_error_exits_1(capsys, monkeypatch):
    monkeypatch.setattr("shapehint.devicerun.api._inferred", lambda text, path, notes: {"values": []})
    path, text = fixture("bad.py")
    rc = cli.main(_args(path, "--entry", "crash", "--device", "cpu", "--input", "x=2,4:float32"))
    out, err = capsys.readouterr()
    assert rc == 1 and "about to execute" in err
    assert "error SH502 RuntimeError" in out and "summary:" in out and "device: cpu" in out


@pytest.mark.parametrize("argv, needle", [
    (["--input", "x=2,a"], "dimensions must be integers"),
    (["--input", "x"], "expected NAME="),
    (["--arg", "d_in"], "expected NAME=EXPR"),
    (["--entry", "Nope"], "no such class"),
    (["--entry", "Head"], "--arg d_in=VALUE"),
    (["--build", "Head(4)"], "--build needs --entry"),
    (["--entry", "Head", "--build", "Head(4)", "--arg", "d_in=4"], "give one of them"),
    (["--entry", "Head", "--build", "Head(4"], "was never closed"),
])
def test_usage_errors_exit_2_before_running(capsys, argv, needle):
    path, _ = fixture("cnn.py")
    assert cli.main(_args(path, "--device", "meta", *argv)) == 2
    out, err = capsys.readouterr()
    assert needle in err and "about to execute" not in err and out == ""


def test_build_runs_the_entry_on_what_a_factory_expression_builds(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr("shapehint.devicerun.api._inferred", lambda text, path, notes: {"values": []})
    _, text = fixture("cnn.py")
    path = tmp_path / "cnn_factory.py"
    path.write_text(text + "\n\ndef small_head():\n    return Head(6, n_out=3)\n")
    rc = cli.main(_args(str(path), "--entry", "Head", "--build", "small_head()", "--device", "cpu",
                        "--input", "x=2,6", "--format", "json"))
    out, err = capsys.readouterr()
    assert rc == 0, out
    assert "small_head().forward(x=[2, 6])" in err
    r = json.loads(out)
    assert r["error"] is None and [it["observed"] for it in r["lines"] if it["name"] == "y"] == [[2, 3]]


def test_build_of_another_class_is_refused_by_the_run(capsys, monkeypatch):
    monkeypatch.setattr("shapehint.devicerun.api._inferred", lambda text, path, notes: {"values": []})
    path, _ = fixture("cnn.py")
    rc = cli.main(_args(path, "--entry", "Head", "--build", "Net()", "--device", "meta", "--input", "x=2,6",
                        "--format", "json"))
    r = json.loads(capsys.readouterr().out)
    assert rc == 1 and "built a Net, not a Head" in r["error"]["message"]
