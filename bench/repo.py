"""Whole-repository `shapehint check`: transformers 4.57.6's `models/` tree, cold, warm and after
one edit, with the peak memory of the whole process tree (issue 23).

    python bench/repo.py                     # measure, print the table, write bench/results/repo.json
    python bench/repo.py --update-readme     # ... and put the table in README.md
    python bench/repo.py --from-json bench/results/repo.json --update-readme   # re-render only

The pinned wheel comes from the package registry (`pip download --no-deps transformers==4.57.6`,
never installed) into a cache outside the repository (`--cache`, default
`~/.cache/shapehint/repo-bench`), unpacked once, and copied to a fresh temporary folder for every
run, so the edit never touches the pristine copy. The three runs, each a fresh process:

  cold      `shapehint check transformers/models --cache-dir C --quiet --statistics --format json`
            with an empty cache C;
  warm      the same again, nothing changed;
  one file  after an edit of a layer size in `bert/modeling_bert.py` (the pooler's `Linear` gets
            `2 * config.hidden_size` outputs and the `Tanh` after it is unchanged): that file and
            the files importing it are analysed again, the rest comes from the cache.

Each run records where its time went (`check --timings`): the analysis seconds of every file it
analysed by relative path (`per_file_seconds`), how many were skipped as not PyTorch or taken from
the cache, the distribution of the seconds and the slowest 30 files (`time_profile`).

Peak memory is the largest sum of the resident sizes of the `check` process and all its
descendants (the workers), sampled every 50 ms from /proc. The machine's load (`os.getloadavg`)
is recorded before and after each run: on a shared machine the times are only as good as it
was quiet. Nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "realmodels"))
from pipeline import compile_server  # noqa: E402
VERSION = "4.57.6"
EDIT_FILE = "transformers/models/bert/modeling_bert.py"
EDIT_FROM = "        self.dense = nn.Linear(config.hidden_size, config.hidden_size)\n        self.activation = nn.Tanh()"
EDIT_TO = "        self.dense = nn.Linear(config.hidden_size, 2 * config.hidden_size)\n        self.activation = nn.Tanh()"
TARGETS = {"cold": 120.0, "warm": 5.0, "one_file": 10.0, "peak_mb": 1024.0}


def fetch(cache: str) -> str:
    """The unpacked wheel's folder (holding `transformers/`), downloaded and unpacked once."""
    src = os.path.join(cache, "src")
    if os.path.isdir(os.path.join(src, "transformers", "models")):
        return src
    wheels = os.path.join(cache, "wheels")
    wheel = os.path.join(wheels, f"transformers-{VERSION}-py3-none-any.whl")
    if not os.path.exists(wheel):
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"transformers=={VERSION}",
                        "-d", wheels], check=True)
    tmp = src + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    with zipfile.ZipFile(wheel) as z:
        z.extractall(tmp)
    os.replace(tmp, src)
    return src


def _tree_rss_kb(root_pid: int) -> int:
    children: dict = {}
    rss: dict = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                stat = fh.read()
            with open(f"/proc/{name}/statm") as fh:
                pages = int(fh.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(name))
        rss[int(name)] = pages * os.sysconf("SC_PAGE_SIZE") // 1024
    total, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, ()))
    return total


def run_check(workdir: str, cache_dir: str, jobs) -> dict:
    timings = os.path.join(workdir, "timings.json")
    cmd = [sys.executable, "-m", "shapehint", "check", "transformers/models", "--cache-dir", cache_dir,
           "--quiet", "--statistics", "--format", "json", "--timings", timings] + (["--jobs", str(jobs)] if jobs else [])
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "server"))
    compile_server()  # a cold run is a cold cache, not a ShapeHint without its bytecode (pipeline.py)
    load_before = os.getloadavg()
    peak = [0]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = threading.Event()

    def sample():
        while not done.wait(0.05):
            peak[0] = max(peak[0], _tree_rss_kb(proc.pid))
    t = threading.Thread(target=sample, daemon=True)
    t.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    t.join()
    report = json.loads(out)
    diags = [d for f in report["files"] for d in f["diagnostics"]]
    with open(timings, encoding="utf-8") as fh:
        seconds = json.load(fh)
    return {"time_profile": time_profile(seconds), "per_file_seconds": seconds["analysed_s"], "seconds": round(wall, 2), "peak_mb": round(peak[0] / 1024, 1), "exit": proc.returncode,
            "files": len(report["files"]), "errors": sum(d["severity"] == "error" for d in diags),
            "diagnostics": len(diags), "statistics": err.strip().splitlines(),
            "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
            "report": report}


def time_profile(timings: dict) -> dict:
    """Where a run's time went: files by fate, the analysed files' seconds by quantile and by
    bracket (how many files, how many seconds), and the slowest 30 by path."""
    secs = sorted(timings["analysed_s"].values())
    n = len(secs)
    out = {"analysed": n, "not_torch": len(timings["not_torch"]), "cached": len(timings["cached"]),
           "analysis_s_total": round(sum(secs), 1)}
    if n:
        out["quantiles_s"] = {f"p{q}": round(secs[min(n - 1, n * q // 100)], 2) for q in (10, 25, 50, 75, 90, 99)}
        brackets = [(0, 0.5), (0.5, 1), (1, 2), (2, 5), (5, 10), (10, float("inf"))]
        out["brackets"] = {f"{lo:g}-{hi:g} s": {"files": sum(lo <= s < hi for s in secs),
                                                "seconds": round(sum(s for s in secs if lo <= s < hi), 1)}
                           for lo, hi in brackets}
        slow = sorted(timings["analysed_s"].items(), key=lambda kv: (-kv[1], kv[0]))[:30]
        out["slowest"] = [[p, s] for p, s in slow]
    return out


def measure(cache: str, jobs) -> dict:
    src = fetch(cache)
    work = tempfile.mkdtemp(prefix="shapehint-repo-bench-")
    try:
        shutil.copytree(os.path.join(src, "transformers"), os.path.join(work, "transformers"))
        cache_dir = os.path.join(work, "cache")
        runs = {"cold": run_check(work, cache_dir, jobs), "warm": run_check(work, cache_dir, jobs)}
        path = os.path.join(work, EDIT_FILE)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        if EDIT_FROM not in text:
            raise SystemExit(f"the edit's anchor is not in {EDIT_FILE}: update EDIT_FROM")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text.replace(EDIT_FROM, EDIT_TO, 1))
        runs["one_file"] = run_check(work, cache_dir, jobs)
        same = runs["cold"]["report"] == runs["warm"]["report"]
        for r in runs.values():
            del r["report"]
        return {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": _machine(),
                "jobs": jobs or "default (all cores)", "commit": _commit(), "warm_equals_cold": same, "runs": runs}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _machine() -> str:
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu} ({os.cpu_count()} cores), Python {platform.python_version()}"


def _commit() -> str:
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return "?"


def _analysed(run: dict) -> str:
    line = next((ln for ln in run["statistics"] if "analysed:" in ln), "")
    return line.split("analysed:")[1].split(",")[0].strip() if line else "?"


def render(data: dict) -> str:
    runs = data["runs"]
    peak = max(r["peak_mb"] for r in runs.values())
    rows = [
        ("cold (empty cache)", runs["cold"], f"≤ {TARGETS['cold']:g} s", runs["cold"]["seconds"] <= TARGETS["cold"]),
        ("warm (nothing changed)", runs["warm"], f"≤ {TARGETS['warm']:g} s", runs["warm"]["seconds"] <= TARGETS["warm"]),
        ("one file changed (`bert/modeling_bert.py`)", runs["one_file"], f"≤ {TARGETS['one_file']:g} s",
         runs["one_file"]["seconds"] <= TARGETS["one_file"]),
    ]
    out = [f"`python bench/repo.py` on {data['when']}, {data['machine']}, commit {data['commit']}, "
           f"--jobs {data['jobs']}: transformers {VERSION} `models/` ({runs['cold']['files']} files). "
           f"Load average (1 min) before the runs: "
           + ", ".join(f"{k} {r['load_before'][0]}" for k, r in runs.items())
           + " (other work shared the machine when it is above 0 by much).", "",
           "| run | wall s | files analysed | peak MB (process tree) | errors reported | target |  |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for label, r, target, ok in rows:
        out.append(f"| {label} | {r['seconds']} | {_analysed(r)} | {r['peak_mb']} | {r['errors']} | {target} | "
                   f"{'**met**' if ok else '**not met**'} |")
    out.append(f"| peak memory, all runs | | | {peak} | | ≤ {TARGETS['peak_mb']:g} MB | "
               f"{'**met**' if peak <= TARGETS['peak_mb'] else '**not met**'} |")
    prof = runs["cold"].get("time_profile")
    if prof and prof.get("analysed"):
        q = prof["quantiles_s"]
        out.append("")
        out.append(f"Cold run: {prof['analysed']} files analysed ({prof['analysis_s_total']} s of analysis in all), "
                   f"{prof['not_torch']} skipped as not PyTorch; per-file seconds median {q['p50']}, "
                   f"p90 {q['p90']}, p99 {q['p99']}; slowest: "
                   + ", ".join(f"`{p.split('/models/', 1)[-1]}` {s:.1f}" for p, s in prof["slowest"][:5]) + ".")
    out.append("")
    out.append(f"Warm output identical to cold: {'yes' if data['warm_equals_cold'] else 'NO'}.")
    return "\n".join(out)


def update_readme(table: str) -> None:
    path = os.path.join(ROOT, "README.md")
    a, b = "<!-- repo-perf:start -->", "<!-- repo-perf:end -->"
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    if a not in text or b not in text:
        raise SystemExit(f"README.md has no {a} ... {b} markers")
    head, rest = text.split(a, 1)
    _, tail = rest.split(b, 1)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(head + a + "\n" + table + "\n" + b + tail)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "shapehint", "repo-bench"),
                    help="where the wheel is downloaded and unpacked (outside the repository)")
    ap.add_argument("--jobs", type=int, default=None, help="passed to shapehint check (default: all cores)")
    ap.add_argument("--json", default=os.path.join(HERE, "results", "repo.json"))
    ap.add_argument("--from-json", help="render these numbers instead of measuring")
    ap.add_argument("--update-readme", action="store_true")
    args = ap.parse_args(argv)
    if args.from_json:
        with open(args.from_json, encoding="utf-8") as fh:
            data = json.load(fh)
    else:
        data = measure(args.cache, args.jobs)
        os.makedirs(os.path.dirname(args.json), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
    table = render(data)
    print(table)
    if args.update_readme:
        update_readme(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
