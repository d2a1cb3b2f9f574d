"""`shapehint check` over a repository (project/check.py): the cache, --jobs, incremental
re-checks, the cheap skip, progress, --statistics and the per-file time budget (SH005).

Every comparison is between whole outputs: what the cache or the workers give must be exactly
what a plain run gives."""
import json
import os
import pty
import subprocess
import sys

import pytest

SERVER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "server")

LAYERS = '''import torch
import torch.nn as nn

WIDTH = 64


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(WIDTH, 10)

    def forward(self, x):
        return self.fc(x)
'''

MODEL = '''import torch
from layers import Block

block = Block()
y = block(torch.zeros(4, 64))
'''

OTHER = '''import torch
import torch.nn as nn

fc = nn.Linear(3, 5)
z = fc(torch.zeros(2, 4))
'''

# TensorFlow-style code: taken for torch code, `x.view` here would be a provable SH103
TF = '''import tensorflow as tf


def f(x):
    return x.view(2, 3) + x.view(4, 5)
'''


def run(*args, cwd, env=None, stderr=subprocess.PIPE):
    env = dict(os.environ if env is None else env, PYTHONPATH=SERVER)
    p = subprocess.run([sys.executable, "-m", "shapehint", "check", *args], cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=300)
    assert "Traceback" not in (p.stderr or ""), p.stderr
    return p


@pytest.fixture()
def repo(tmp_path):
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "other.py").write_text(OTHER)
    (tmp_path / "tf_model.py").write_text(TF)
    return tmp_path


def plain(repo, fmt="json"):
    return run(".", "--no-cache", "--jobs", "1", "--format", fmt, cwd=repo)


def stat_line(stderr, label):
    line = [ln for ln in stderr.splitlines() if label in ln][0]
    return line


def test_cache_and_jobs_give_the_same_output(repo):
    base = plain(repo)
    assert base.returncode == 1 and base.stderr == ""
    files = {f["file"]: f["diagnostics"] for f in json.loads(base.stdout)["files"]}
    assert [d["code"] for d in files["./other.py"]] == ["SH101"]
    assert files["./tf_model.py"] == [], "a file that does not use PyTorch gets no analysis"
    for fmt in ("json", "text", "sarif"):
        expected = plain(repo, fmt).stdout
        for jobs in ("1", "2"):
            cold = run(".", "--jobs", jobs, "--format", fmt, "--cache-dir", f"c{fmt}{jobs}", cwd=repo)
            warm = run(".", "--jobs", jobs, "--format", fmt, "--cache-dir", f"c{fmt}{jobs}", "--statistics", cwd=repo)
            assert cold.stdout == expected and warm.stdout == expected and warm.returncode == cold.returncode == 1
            assert "from the cache: 3 " in warm.stderr and "analysed: 0," in warm.stderr
    assert (repo / "cjson1" / ".gitignore").read_text().strip().endswith("*")


def test_an_edit_to_an_imported_file_rechecks_its_importers_only(repo):
    first = run(".", "--statistics", "--format", "json", cwd=repo)
    assert first.returncode == 1 and "analysed: 3," in first.stderr  # layers, model, other; the tf file skipped
    model = [f for f in json.loads(first.stdout)["files"] if f["file"] == "./model.py"][0]
    assert model["diagnostics"] == []
    (repo / "layers.py").write_text(LAYERS.replace("WIDTH = 64", "WIDTH = 32"))
    again = run(".", "--statistics", "--format", "json", cwd=repo)
    assert "analysed: 2," in again.stderr and "from the cache: 1 " in again.stderr, again.stderr
    assert again.stdout == plain(repo).stdout
    model = [f for f in json.loads(again.stdout)["files"] if f["file"] == "./model.py"][0]
    assert [d["code"] for d in model["diagnostics"]] == ["SH101"], "the importer sees the new width"


def test_a_corrupt_entry_is_ignored_and_rewritten(repo):
    run(".", cwd=repo)
    entries = [os.path.join(r, f) for r, _, fs in os.walk(repo / ".shapehint_cache" / "entries") for f in fs]
    assert len(entries) == 3
    for i, e in enumerate(entries):
        with open(e, "w") as fh:
            fh.write(["{not json", '{"diagnostics": 3}', "[]"][i])
    again = run(".", "--format", "json", "--statistics", cwd=repo)
    assert again.stdout == plain(repo).stdout and "analysed: 3," in again.stderr
    for e in entries:
        with open(e) as fh:
            assert isinstance(json.load(fh)["diagnostics"], list)


def test_statistics_go_to_stderr_whatever_the_format(repo):
    p = run(".", "--statistics", "--format", "json", "--no-cache", "--jobs", "1", cwd=repo)
    json.loads(p.stdout)  # stdout is only the report
    assert "4 files checked" in p.stderr
    assert stat_line(p.stderr, "not using PyTorch").endswith(": 1")
    assert "slowest:" in p.stderr and "other.py" in p.stderr.split("slowest:")[1]


def test_no_progress_when_stderr_is_not_a_terminal_or_quiet(repo):
    assert run(".", "--jobs", "1", "--no-cache", cwd=repo).stderr == ""
    primary, secondary = pty.openpty()
    try:
        p = run(".", "--jobs", "1", "--no-cache", cwd=repo, stderr=secondary)
        os.close(secondary)
        secondary = None
        seen = b""
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        assert b"[3/3]" in seen, "a terminal shows progress"
        quiet_primary, quiet_secondary = pty.openpty()
        run(".", "--jobs", "1", "--no-cache", "--quiet", cwd=repo, stderr=quiet_secondary)
        os.close(quiet_secondary)
        os.set_blocking(quiet_primary, False)
        try:
            assert os.read(quiet_primary, 4096) == b""
        except (BlockingIOError, OSError):
            pass  # nothing was written
        os.close(quiet_primary)
    finally:
        os.close(primary)
        if secondary is not None:
            os.close(secondary)
    assert p.returncode == 1


def test_the_per_file_time_budget_note(repo):
    # a budget no analysis of this file fits in (the analysis looks at the clock every 64 steps)
    (repo / "big.py").write_text("import torch\n" + "".join(f"x{i} = torch.zeros({i % 7 + 1}, 3)\n" for i in range(300)))
    p = run("big.py", "tf_model.py", "--time-budget", "0.000001", "--format", "json", "--statistics", cwd=repo)
    files = {f["file"]: f["diagnostics"] for f in json.loads(p.stdout)["files"]}
    assert [(d["code"], d["severity"], d["line"]) for d in files["big.py"]] == [("SH005", "information", 1)]
    assert "per-file budget" in files["big.py"][0]["message"]
    assert files["tf_model.py"] == [] and p.returncode == 0
    assert "over the time budget (SH005): 1" in p.stderr
    # the cached note is not reused by a run with a larger budget
    again = run("big.py", "--format", "json", "--statistics", cwd=repo)
    assert again.stdout == run("big.py", "--format", "json", "--no-cache", cwd=repo).stdout
    assert "analysed: 1," in again.stderr and "SH005" not in again.stdout


def test_workers_recycled_for_memory_give_the_same_answers(repo):
    for i in range(4):
        (repo / f"extra{i}.py").write_text(OTHER.replace("Linear(3, 5)", f"Linear({i + 3}, 5)"))
    p = run(".", "--no-cache", "--jobs", "2", "--worker-memory-mb", "1", "--format", "json", "--statistics", cwd=repo)
    assert p.stdout == plain(repo).stdout
    assert "(--jobs 2, 7 worker processes started)" in p.stderr, "each worker left after one file"


def test_bad_options_exit_2(repo):
    for args in (["--jobs", "0"], ["--jobs", "x"], ["--time-budget", "soon"]):
        p = run(".", *args, cwd=repo)
        assert p.returncode == 2 and p.stderr.count("\n") <= 2


def test_two_runs_sharing_one_cache(repo):
    env = dict(os.environ, PYTHONPATH=SERVER)
    cmd = [sys.executable, "-m", "shapehint", "check", ".", "--jobs", "1", "--format", "json"]
    procs = [subprocess.Popen(cmd, cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    expected = plain(repo).stdout
    assert [o for o, _ in outs] == [expected, expected] and all(e == "" for _, e in outs)
    assert run(".", "--format", "json", cwd=repo).stdout == expected


def test_timings_name_each_file_by_its_fate(repo):
    p = run(".", "--no-cache", "--jobs", "1", "--format", "json", "--timings", "t.json", cwd=repo)
    with open(repo / "t.json") as fh:
        timings = json.load(fh)
    assert sorted(timings["analysed_s"]) == ["./layers.py", "./model.py", "./other.py"]
    assert all(isinstance(s, float) for s in timings["analysed_s"].values())
    assert timings["not_torch"] == ["./tf_model.py"]
    assert timings["cached"] == []
    assert json.loads(p.stdout) == json.loads(plain(repo).stdout)  # the report is unchanged by it
    cached = run(".", "--format", "json", "--timings", "t2.json", "--cache-dir", "c", cwd=repo)
    again = run(".", "--format", "json", "--timings", "t2.json", "--cache-dir", "c", cwd=repo)
    assert json.loads(cached.stdout) == json.loads(again.stdout)
    with open(repo / "t2.json") as fh:
        timings = json.load(fh)
    assert timings["analysed_s"] == {}
    assert sorted(timings["cached"]) == ["./layers.py", "./model.py", "./other.py"]
